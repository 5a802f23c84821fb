/**
 * A SES emulator (aws-ses-v2-local, a dev dependency) of the bench's own, on a free port: a bench
 * that sends thousands of emails keeps them out of the shared emulator's store, which every
 * integration test reads whole (GET /store) and which is never cleared.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../test/free-port';
import { eventually } from '../../test/eventually';
import { openResultsLog } from './results';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export async function startSesEmulator(logName: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const cli = path.join(path.dirname(createRequire(import.meta.url).resolve('aws-ses-v2-local/package.json')), 'dist/cli.js');
  const log = openResultsLog(logName);
  // with message ids that never repeat, as the stack's emulator (scripts/ses-emulator-ids.mjs): a
  // bench's thousands of sends otherwise meet a repeated id now and then, and that send stops
  // as "delivery unknown" (a 30 events/s run of 2026-11-30 counted it as an email never sent)
  const ids = path.join(REPO, 'scripts/ses-emulator-ids.mjs');
  const child = spawn(process.execPath, ['--import', ids, cli, '--host', '127.0.0.1', '--port', String(port)], { stdio: ['ignore', log, log] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  await eventually(
    () =>
      fetch(`${url}/health-check`).then(
        (response) => response.ok,
        () => false,
      ),
    (up) => up,
    { what: `the bench's SES emulator on port ${port}` },
  );
  return {
    url,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** SES_ENDPOINT when it is set (an emulator or endpoint the caller chose), else an emulator of the bench's own. */
export async function sesEmulator(logName: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const configured = process.env.SES_ENDPOINT;
  if (configured === undefined || configured === '') return startSesEmulator(logName);
  return { url: configured, stop: async () => {} };
}
