/**
 * Redis and PostgreSQL instances of a test's own, on ports of their own, so a test can kill and
 * restart them without touching the shared stack (or any other test running at the same time).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, closeSync, existsSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { createConnection } from 'node:net';
import { loadConfig } from '@waymark/core/config/config';
import { createTemporalGateway } from '../runtime/client';
import { eventually } from './eventually';
import { integrationEnv } from './test-env';

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

/** SIGKILLs the child (when there is one) and waits for its exit; returns undefined for the caller's handle. */
async function sigkill(child: ChildProcess | undefined): Promise<undefined> {
  if (child === undefined) return undefined;
  child.kill('SIGKILL');
  await exited(child);
  return undefined;
}

/** Resolves once something accepts TCP connections on the port (or rejects after timeoutMs). */
export async function waitForPort(port: number, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on port ${port} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Resolves once the Temporal frontend at `address` answers the api's own health probe
 * (`createTemporalGateway().ping`: GetSystemInfo within a deadline). Its port accepts connections
 * before the frontend is ready, and a worker connecting in that gap fails with "Frontend is not
 * healthy yet".
 */
async function waitForTemporalHealthy(address: string, timeoutMs = 60_000): Promise<void> {
  const config = loadConfig({ ...integrationEnv(), TEMPORAL_ADDRESS: address });
  const gateway = createTemporalGateway(config.temporal, config.encryptionKeys, config.tracing);
  try {
    await eventually(
      () =>
        gateway.ping(2_000).then(
          () => true,
          () => false,
        ),
      (healthy) => healthy,
      { timeoutMs, intervalMs: 250, what: `the Temporal server at ${address} to answer its health probe` },
    );
  } finally {
    await gateway.close();
  }
}

/** Resolves once nothing accepts TCP connections on the port (or rejects after timeoutMs). */
async function waitForPortClosed(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (
    await waitForPort(port, 0).then(
      () => true,
      () => false,
    )
  ) {
    if (Date.now() > deadline) throw new Error(`port ${port} still accepts connections after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export interface ThrowawayRedis {
  url: string;
  start(): Promise<void>;
  /** SIGKILL: no shutdown, as a crash */
  kill(): Promise<void>;
}

/** An in-memory redis-server (no persistence) on `port`. */
export function throwawayRedis(port: number): ThrowawayRedis {
  let child: ChildProcess | undefined;
  return {
    url: `redis://127.0.0.1:${port}/0`,
    async start() {
      child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
      await waitForPort(port);
    },
    async kill() {
      child = await sigkill(child);
    },
  };
}

export interface ThrowawayPostgres {
  /** superuser `postgres` over TCP, database `postgres` (create your own) */
  url(database?: string): string;
  start(): Promise<void>;
  /** SIGKILL of the postmaster: its backends exit, connections drop, nothing is shut down cleanly */
  kill(): Promise<void>;
  /** stop (if running) and remove the data directory */
  destroy(): Promise<void>;
}

function postgresBin(name: string): string {
  const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
  return path.join('/usr/lib/postgresql', versions[0]!, 'bin', name);
}

/**
 * A fresh cluster (initdb in a temp dir, trust auth on 127.0.0.1) on `port`. PostgreSQL refuses
 * to run as root, so as root the cluster is owned by and run as the `postgres` OS user.
 */
export function throwawayPostgres(port: number): ThrowawayPostgres {
  const dir = mkdtempSync(path.join(tmpdir(), 'waymark-pg-'));
  const data = path.join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  const command = (bin: string, args: string[]) =>
    (asRoot ? ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', bin, ...args]] : [bin, args]) as [string, string[]];
  let child: ChildProcess | undefined;
  let initialised = false;
  return {
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    async start() {
      if (!initialised) {
        chmodSync(dir, 0o777);
        const [bin, args] = command(postgresBin('initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
        const init = spawnSync(bin, args, { encoding: 'utf8' });
        if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
        initialised = true;
      }
      const [bin, args] = command(postgresBin('postgres'), [
        '-D',
        data,
        '-p',
        String(port),
        '-k',
        dir,
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'fsync=off',
        '-c',
        'max_connections=200',
      ]);
      child = spawn(bin, args, { stdio: 'ignore' });
      await waitForPort(port);
      // accepting TCP is not accepting queries yet (recovery after a kill): wait for pg_isready
      const deadline = Date.now() + 60_000;
      while (spawnSync(postgresBin('pg_isready'), ['-q', '-h', '127.0.0.1', '-p', String(port)]).status !== 0) {
        if (Date.now() > deadline) throw new Error(`postgres on ${port} not ready`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async kill() {
      if (child === undefined) return;
      child.kill('SIGKILL');
      await exited(child);
      child = undefined;
      // the postmaster's backends notice it is gone and exit; wait until the port is free
      await waitForPortClosed(port, 10_000);
    },
    async destroy() {
      await this.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface ThrowawayTemporal {
  address: string;
  /** resolves once the frontend answers; refuses a port something else already listens on (say a server an interrupted run left behind) */
  start(): Promise<void>;
  /** SIGKILL: the server vanishes mid-call, as in a crash; its SQLite file keeps every run */
  kill(): Promise<void>;
  /** kill (if running) and remove the database file */
  destroy(): Promise<void>;
}

/** The Temporal CLI `scripts/stack.sh` builds into WAYMARK_CACHE (default ~/.cache/waymark). */
export function temporalCliPath(): string {
  return path.join(process.env.WAYMARK_CACHE ?? path.join(homedir(), '.cache/waymark'), 'bin/temporal');
}

/**
 * A Temporal dev server of the test's own on `port` (no Web UI), persisted in a temp SQLite file
 * so a kill and restart keeps its runs, with the search attributes the journey runs set (the CLI
 * of `temporalCliPath`).
 */
export function throwawayTemporal(port: number): ThrowawayTemporal {
  const dir = mkdtempSync(path.join(tmpdir(), 'waymark-temporal-'));
  const cli = temporalCliPath();
  const log = path.join(dir, 'server.log');
  let child: ChildProcess | undefined;
  const logTail = () => (existsSync(log) ? readFileSync(log, 'utf8').slice(-4_000) : '');
  return {
    address: `127.0.0.1:${port}`,
    async start() {
      // a server left on the port would take this one's place unnoticed, and survive its kill
      await waitForPortClosed(port, 0).catch(() => {
        throw new Error(`port ${port} is already taken: is a Temporal server from an interrupted run still there?`);
      });
      const out = openSync(log, 'a');
      child = spawn(
        cli,
        [
          'server',
          'start-dev',
          '--ip',
          '127.0.0.1',
          '--port',
          String(port),
          '--headless',
          '--db-filename',
          path.join(dir, 'temporal.db'),
          '--namespace',
          'default',
          '--log-level',
          'error',
          // as scripts/stack.sh runs it, so the kill tests exercise the dev profile's journal mode
          '--sqlite-pragma',
          'journal_mode=wal',
          '--sqlite-pragma',
          'synchronous=normal',
          '--search-attribute',
          'WaymarkJourneyId=Keyword',
          '--search-attribute',
          'WaymarkJourneyVersion=Keyword',
          '--search-attribute',
          'WaymarkUserId=Keyword',
        ],
        { stdio: ['ignore', out, out] },
      );
      closeSync(out);
      const started = child;
      let starting = true;
      const exitedAtStart = exited(started).then(() => {
        if (starting) throw new Error(`the Temporal server on ${port} exited at start (${String(started.exitCode ?? started.signalCode)}): ${logTail()}`);
      });
      try {
        await Promise.race([waitForPort(port).then(() => waitForTemporalHealthy(`127.0.0.1:${port}`)), exitedAtStart]);
      } finally {
        starting = false;
      }
    },
    async kill() {
      child = await sigkill(child);
      await waitForPortClosed(port, 10_000);
    },
    async destroy() {
      await this.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
