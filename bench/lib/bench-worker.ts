/**
 * Starts bench/lib/worker-process.ts as a child process (node with the tsx loader, IPC channel)
 * and waits until it polls. `stop` sends SIGTERM and waits for the worker to drain and exit. Its
 * log goes to bench/results/<logName>.log.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { resultsDir } from './results';

const entry = path.resolve(path.dirname(fileURLToPath(import.meta.url)), 'worker-process.ts');

export interface BenchWorker {
  /** the worker process's id (its memory is in /proc/<pid>/status) */
  pid: number;
  /** ping runs completed so far (0 without a ping queue) */
  pings(): Promise<number>;
  stop(): Promise<void>;
}

export async function startBenchWorker(env: Record<string, string>, logName: string): Promise<BenchWorker> {
  mkdirSync(resultsDir, { recursive: true });
  const log = openSync(path.join(resultsDir, `${logName}.log`), 'w');
  // BENCH_WORKER_CPU_PROF=<dir>: the worker writes a V8 CPU profile there when it stops (node --cpu-prof)
  const profile = process.env.BENCH_WORKER_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_WORKER_CPU_PROF}`] : [];
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', entry], {
    env: { ...process.env, ...env },
    stdio: ['ignore', log, log, 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`bench worker exited (code ${code}) before polling; see bench/results/${logName}.log`));
    child.once('exit', onExit);
    child.once('message', (message) => {
      child.off('exit', onExit);
      if (message === 'ready') resolve();
      else reject(new Error(`bench worker: unexpected message ${JSON.stringify(message)}`));
    });
  });
  return {
    pid: child.pid!,
    pings: () =>
      new Promise<number>((resolve) => {
        child.once('message', (message) => resolve((message as { pings: number }).pings));
        child.send('pings');
      }),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
