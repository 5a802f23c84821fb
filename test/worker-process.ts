import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * A real worker process (apps/worker/src/main.ts), so a test can kill it with SIGKILL mid-work.
 * Node itself with the tsx loader, not the tsx CLI: the CLI runs the script in a child process,
 * and killing the CLI would leave that worker running (and finishing the work).
 */
export function startWorkerProcess(env: Record<string, string>, stdout: 'ignore' | 'pipe' | 'inherit' = 'ignore'): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'apps/worker/src/main.ts'], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    // 'pipe' for a test that waits on the worker's log lines, 'inherit' to keep them in the test's output
    stdio: ['ignore', stdout, 'inherit'],
  });
}

export function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}
