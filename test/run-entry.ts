import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface Exit {
  code: number | null;
  output: string;
}

/** An entry point running as its own process: its output so far, a wait on it, and its exit. */
export interface RunningEntry {
  /** everything printed so far, stdout and stderr together */
  output(): string;
  /** resolves once the output matches; rejects if the process exits first or `timeoutMs` passes */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<void>;
  kill(signal?: NodeJS.Signals): void;
  exited: Promise<Exit>;
}

/**
 * Starts an entry point as its own process (the way `npm start` or `npm run waymark` does) with
 * exactly `env` (plus PATH and HOME), collecting its output. A TypeScript entry runs with the tsx
 * loader; a compiled one (dist/…/*.js of `npm run build`) with plain node, as in production.
 */
export function startEntry(
  entry: string,
  env: Record<string, string | undefined>,
  options: { args?: string[]; nodeFlags?: readonly string[] } = {},
): RunningEntry {
  const loader = entry.endsWith('.ts') ? ['--import', 'tsx'] : ['--enable-source-maps'];
  const child = spawn(process.execPath, [...loader, ...(options.nodeFlags ?? []), entry, ...(options.args ?? [])], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<Exit>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, output }));
  });
  return {
    output: () => output,
    waitForOutput(pattern, timeoutMs = 60_000) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!pattern.test(output)) return;
          done();
          resolve();
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`no output matching ${pattern} within ${timeoutMs} ms:\n${output}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        void exited.then(() => {
          done();
          reject(new Error(`exited before printing ${pattern}:\n${output}`));
        });
        check();
      });
    },
    kill: (signal) => child.kill(signal),
    exited,
  };
}

/**
 * Runs an entry point to its exit and returns its output. With `untilOutput` and `signal`, the
 * process is sent the signal once its output matches.
 */
export function runEntry(
  entry: string,
  env: Record<string, string | undefined>,
  options: { args?: string[]; untilOutput?: RegExp; signal?: NodeJS.Signals } = {},
): Promise<Exit> {
  const running = startEntry(entry, env, options);
  const { untilOutput, signal } = options;
  if (untilOutput !== undefined && signal !== undefined)
    running.waitForOutput(untilOutput, 600_000).then(
      () => running.kill(signal),
      () => undefined,
    );
  return running.exited;
}
