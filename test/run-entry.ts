import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface Exit {
  code: number | null;
  output: string;
}

/**
 * Runs an entry point as its own process (the way `npm start` or `npm run waymark` does) with
 * exactly `env` (plus PATH and HOME) and collects its output. With `untilOutput` and `signal`,
 * the process is sent the signal once its output matches.
 */
export function runEntry(
  entry: string,
  env: Record<string, string | undefined>,
  options: { args?: string[]; untilOutput?: RegExp; signal?: NodeJS.Signals } = {},
): Promise<Exit> {
  let untilOutput = options.untilOutput;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', entry, ...(options.args ?? [])], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (untilOutput && options.signal && untilOutput.test(output)) {
        untilOutput = undefined;
        child.kill(options.signal);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, output }));
  });
}
