/**
 * Starts bench/lib/worker-process.ts as a child process (node with the tsx loader, IPC channel)
 * and waits until it polls. `stop` sends SIGTERM and waits for the worker to drain and exit. Its
 * log goes to bench/results/<logName>.log.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WORKER_NODE_FLAGS } from '../../apps/worker/src/node-flags';
import { openResultsLog } from './results';

const entry = path.resolve(path.dirname(fileURLToPath(import.meta.url)), 'worker-process.ts');

export interface BenchWorker {
  /** the worker's process id (for /proc readings: CPU in process-cpu.ts, memory in /proc/<pid>/status) */
  pid: number;
  /** ping runs completed so far (0 without a ping queue) */
  pings(): Promise<number>;
  /** SQL statements the worker has sent so far (BEGIN and COMMIT included), and of them those sent by name (prepared) */
  statements(): Promise<{ all: number; named: number }>;
  stop(): Promise<void>;
}

export async function startBenchWorker(env: Record<string, string>, logName: string): Promise<BenchWorker> {
  const log = openResultsLog(logName);
  // BENCH_WORKER_CPU_PROF=<dir>: the worker writes a V8 CPU profile there when it stops (node --cpu-prof)
  const profile = process.env.BENCH_WORKER_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_WORKER_CPU_PROF}`] : [];
  // BENCH_WORKER_NODE_FLAGS: more node flags for the worker alone, e.g. `--trace-gc` (which NODE_OPTIONS refuses)
  const flags = (process.env.BENCH_WORKER_NODE_FLAGS ?? '').split(' ').filter((flag) => flag !== '');
  // the flags every worker runs with (apps/worker/src/node-flags.ts), then the bench's own
  const child = spawn(process.execPath, [...profile, ...WORKER_NODE_FLAGS, ...flags, '--import', 'tsx', entry], {
    // React (and so React Email) picks its development or production build from NODE_ENV when it
    // is first loaded; production deployments set NODE_ENV=production (Dockerfile, docs/deploy.md),
    // and the development build costs several times the CPU per render. The worker reads NODE_ENV
    // for nothing else, so the bench's worker renders as in production unless
    // BENCH_WORKER_NODE_ENV says otherwise (to measure the difference).
    env: { ...process.env, ...env, NODE_ENV: process.env.BENCH_WORKER_NODE_ENV ?? 'production' },
    stdio: ['ignore', log, log, 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // a bench that fails must not leave its api or worker running (and holding database connections)
  process.once('exit', () => child.kill('SIGTERM'));
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
    statements: () =>
      new Promise<{ all: number; named: number }>((resolve) => {
        child.once('message', (message) => resolve((message as { statements: { all: number; named: number } }).statements));
        child.send('statements');
      }),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
