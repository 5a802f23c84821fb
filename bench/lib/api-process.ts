/**
 * Starts a bench's api (bench-api-process.ts: the product app plus the baseline routes) as a child
 * process, node with the tsx loader and an IPC channel, so the load generator and the api do not
 * share one event loop. Its log goes to bench/results/<logName>.log: an overloaded run logs every
 * parked start, which would bury the bench's own output.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openResultsLog } from './results';

const entry = path.resolve(path.dirname(fileURLToPath(import.meta.url)), 'bench-api-process.ts');

export interface ApiProcess {
  url: string;
  /** the api's process id (for /proc CPU readings: process-cpu.ts) */
  pid: number;
  /** resolves once the api's tracking-event backlog is empty */
  drain(): Promise<void>;
  /** closes the server, lets the backlog drain, and waits for the process to exit */
  stop(): Promise<void>;
}

/** `env`: a full configuration (see benchEnv), on a database already prepared. */
export async function startApiProcess(env: Record<string, string>, logName: string): Promise<ApiProcess> {
  const log = openResultsLog(logName);
  // BENCH_API_CPU_PROF=<dir>: the api writes a V8 CPU profile there when it stops (node --cpu-prof)
  const profile = process.env.BENCH_API_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_API_CPU_PROF}`] : [];
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', entry], { env, stdio: ['ignore', log, log, 'ipc'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // a bench that fails must not leave its api or worker running (and holding database connections)
  process.once('exit', () => child.kill('SIGTERM'));
  const url = await new Promise<string>((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`bench api exited (code ${code}) before listening; see bench/results/${logName}.log`));
    child.once('exit', onExit);
    child.once('message', (message) => {
      child.off('exit', onExit);
      resolve((message as { url: string }).url);
    });
  });
  return {
    url,
    pid: child.pid!,
    drain: () =>
      new Promise<void>((resolve) => {
        child.once('message', () => resolve());
        child.send('drain');
      }),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
