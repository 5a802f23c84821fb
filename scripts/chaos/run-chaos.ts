/**
 * The chaos run (`npm run chaos -- --minutes N`, and a 2-minute version in the integration
 * suite): mixed load against an api and a worker while the api, the worker, Redis, PostgreSQL and
 * the Temporal server are SIGKILLed at random moments and restarted 1–10 s later. Every service is
 * an instance of the run's own (own ports, own data directories); the shared dev stack is never
 * touched. Then it waits for convergence and reports what was acknowledged, stored, sent and lost.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { createDatabase, type Db } from '@waymark/core/db/database';
import { migrateToLatest } from '@waymark/core/db/migrator';
import { throwawayPostgres, throwawayRedis, waitForPort } from '../../test/throwaway-services';
import { writeWorkflowBundle } from '../../apps/worker/src/workflow-bundle';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface ChaosOptions {
  minutes: number;
  /** first port of the block the run uses (default 7600: api, SES, Redis, PostgreSQL, Temporal + UI) */
  basePort?: number;
  /** events per second offered (default 4: two cores also host every service) */
  rate?: number;
  /** how long to wait for convergence after the load ends (default 600 s) */
  convergeSeconds?: number;
  log?: (line: string) => void;
}

export interface ChaosReport {
  minutes: number;
  kills: Record<string, number>;
  eventsAcked: number;
  eventsRejected: number;
  eventsStored: number;
  eventsLost: number;
  enrollmentsExpected: number;
  enrollmentsStarted: number;
  /** acked sign-ups whose journey has exactly one run (goal: all of them) */
  enrollmentsStartedOnce: number;
  /** acked sign-ups with more than one run (goal: 0) */
  enrollmentsStartedTwice: number;
  /** starts still kept for the worker's relay when the wait ended (event_effects) */
  journeyStartsPending: number;
  emailsExpected: number;
  emailsSent: number;
  emailsFailedToDlq: number;
  journeyStartsToDlq: number;
  emailsLost: number;
  duplicateSends: number;
  dlqEntries: number;
  trackingHits: number;
  adminReads: number;
  convergedSeconds: number | null;
}

type Target = 'api' | 'worker' | 'redis' | 'postgres' | 'temporal';
const TARGETS: Target[] = ['api', 'worker', 'redis', 'postgres', 'temporal'];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const between = (min: number, max: number) => min + Math.random() * (max - min);

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const began = Date.now();
  const log = options.log ?? ((line: string) => console.log(`[chaos +${((Date.now() - began) / 1000).toFixed(0)} s] ${line}`));
  const base = options.basePort ?? 7600;
  const ports = { api: base, ses: base + 1, redis: base + 2, postgres: base + 3, temporal: base + 10, temporalUi: base + 30 };
  const rate = options.rate ?? 4;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'waymark-chaos-'));
  const adminKey = `chaos-${randomUUID()}-${randomUUID()}`;
  const queue = `chaos-${randomUUID().slice(0, 8)}`;
  const redis = throwawayRedis(ports.redis);
  const postgres = throwawayPostgres(ports.postgres);
  const databaseUrl = postgres.url('waymark');
  const children = new Map<Target | 'ses', ChildProcess>();
  const stderrTail = new Map<string, string>();
  const temporalEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    TEMPORAL_PORT: String(ports.temporal),
    TEMPORAL_UI_PORT: String(ports.temporalUi),
    PG_PORT: String(ports.postgres),
    PG_USER: 'postgres',
    PG_PASSWORD: '',
    TEMPORAL_DB: 'temporal',
  };
  const appEnv: Record<string, string> = {
    ...(process.env as Record<string, string>),
    NODE_ENV: 'development',
    LOG_LEVEL: 'error',
    PORT: String(ports.api),
    HOST: '127.0.0.1',
    API_PUBLIC_URL: `http://127.0.0.1:${ports.api}`,
    DATABASE_URL: databaseUrl,
    CACHE_URL: redis.url,
    TEMPORAL_ADDRESS: `127.0.0.1:${ports.temporal}`,
    TEMPORAL_NAMESPACE: 'default',
    TEMPORAL_TASK_QUEUE: queue,
    SES_ENDPOINT: `http://127.0.0.1:${ports.ses}`,
    EMAIL_PROVIDER_API_KEY: 'chaos:chaos',
    EMAIL_FROM: 'Waymark Chaos <chaos@waymark.local>',
    AUTH_SECRET: 'chaos-auth-secret-at-least-32-characters-long',
    ADMIN_API_KEY: adminKey,
    RATE_LIMIT_MAX: '100000000',
    // built once below: a restarted worker polls in seconds instead of re-running webpack first
    TEMPORAL_WORKFLOW_BUNDLE: path.join(dataDir, 'workflow-bundle.js'),
  };

  // asynchronous: the load keeps running while Temporal comes back
  const startTemporal = () =>
    new Promise<void>((resolve, reject) => {
      let output = '';
      const child = spawn('bash', [path.join(repoRoot, 'scripts/temporal-postgres.sh'), 'up'], { env: temporalEnv });
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`temporal (postgres) did not start: ${output.slice(-2000)}`))));
    });
  const temporalAlive = () => {
    try {
      process.kill(temporalPid(), 0);
      return true;
    } catch {
      return false;
    }
  };
  let temporalRestarting = false;
  const temporalPid = () => Number(readFileSync(path.join(dataDir, `temporal-postgres-${ports.temporal}`, 'server.pid'), 'utf8').trim());
  const startNode = (target: 'api' | 'worker') => {
    // never two of one: a child still alive (a restart racing the supervisor) is replaced, not leaked
    const previous = children.get(target);
    if (previous !== undefined && previous.exitCode === null && previous.signalCode === null) previous.kill('SIGKILL');
    const script = target === 'api' ? 'apps/api/src/server.ts' : 'apps/worker/src/main.ts';
    const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: repoRoot, env: appEnv, stdio: ['ignore', 'ignore', 'pipe'] });
    // the last lines each process wrote, for the report when something never came up
    child.stderr!.on('data', (chunk: Buffer) => {
      const lines = `${stderrTail.get(target) ?? ''}${chunk.toString()}`.split('\n');
      stderrTail.set(target, lines.slice(-15).join('\n'));
    });
    children.set(target, child);
  };
  const start = async (target: Target) => {
    if (target === 'api' || target === 'worker') startNode(target);
    else if (target === 'redis') await redis.start();
    else if (target === 'postgres') await postgres.start();
    else await startTemporal();
  };
  const kill = async (target: Target) => {
    if (target === 'api' || target === 'worker') {
      const child = children.get(target);
      child?.kill('SIGKILL');
      if (child !== undefined) await exited(child);
    } else if (target === 'redis') await redis.kill();
    else if (target === 'postgres') await postgres.kill();
    else {
      try {
        process.kill(temporalPid(), 'SIGKILL');
      } catch {
        // already gone
      }
      for (let i = 0; i < 100; i += 1) {
        if (
          !(await waitForPort(ports.temporal, 0).then(
            () => true,
            () => false,
          ))
        )
          break;
        await sleep(100);
      }
    }
  };
  // a process that died on its own (the api exits when it cannot reach PostgreSQL at boot) is restarted
  const supervise = () => {
    for (const target of ['api', 'worker'] as const) {
      // a target between its kill and its restart belongs to the chaos loop, which restarts it
      if (busy.has(target)) continue;
      const child = children.get(target);
      if (child !== undefined && (child.exitCode !== null || child.signalCode !== null)) startNode(target);
    }
    if (!busy.has('temporal') && !temporalRestarting && !temporalAlive()) {
      temporalRestarting = true;
      log('temporal exited on its own; restarting it');
      void startTemporal()
        .catch((error: unknown) => log(String(error)))
        .finally(() => (temporalRestarting = false));
    }
  };
  // targets between their kill and their restart: not supervised meanwhile
  const busy = new Set<Target>();

  let db: Db | undefined;
  const kills: Record<string, number> = Object.fromEntries(TARGETS.map((target) => [target, 0]));
  const acked: string[] = [];
  let rejected = 0;
  let trackingHits = 0;
  let adminReads = 0;
  try {
    log(`services on ports ${JSON.stringify(ports)}; data in ${dataDir}`);
    const ses = spawn(path.join(repoRoot, 'node_modules/.bin/aws-ses-v2-local'), ['--host', '127.0.0.1', '--port', String(ports.ses)], { stdio: 'ignore' });
    children.set('ses', ses);
    await Promise.all([redis.start(), postgres.start(), waitForPort(ports.ses), writeWorkflowBundle(appEnv.TEMPORAL_WORKFLOW_BUNDLE!)]);
    const admin = createDatabase({ connectionString: postgres.url(), max: 1 });
    await sql`create database waymark`.execute(admin);
    await admin.destroy();
    db = createDatabase({ connectionString: databaseUrl, max: 2, onIdleClientError: () => undefined });
    const migrated = await migrateToLatest(db);
    if (migrated.error !== undefined) throw migrated.error;
    await startTemporal();
    startNode('worker');
    startNode('api');
    const booting = setInterval(supervise, 2_000);
    try {
      await waitForPort(ports.api, 180_000);
    } catch (error) {
      throw new Error(`${(error as Error).message}\napi stderr:\n${stderrTail.get('api') ?? ''}\nworker stderr:\n${stderrTail.get('worker') ?? ''}`);
    } finally {
      clearInterval(booting);
    }
    log('stack up; load and kills start');

    const api = `http://127.0.0.1:${ports.api}`;
    const headers = { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' };
    const end = Date.now() + options.minutes * 60_000;
    let lastRestart = Date.now();

    const load = (async () => {
      let n = 0;
      const inflight = new Set<Promise<void>>();
      while (Date.now() < end) {
        const userId = `chaos-${n++}`;
        const request = (async () => {
          try {
            const response = await fetch(`${api}/v1/events`, {
              method: 'POST',
              headers,
              body: JSON.stringify({ name: 'user.signed_up', userId, email: `${userId}@chaos.example` }),
              signal: AbortSignal.timeout(10_000),
            });
            if (response.status === 202) acked.push(userId);
            else rejected += 1;
          } catch {
            rejected += 1;
          }
          // a tracking hit and an admin read alongside (their outcome is not part of the tally)
          await fetch(`${api}/v1/t/o/${randomUUID()}`, { signal: AbortSignal.timeout(5_000) })
            .then(() => (trackingHits += 1))
            .catch(() => undefined);
          if (n % 5 === 0)
            await fetch(`${api}/v1/admin/events?limit=10`, { headers, signal: AbortSignal.timeout(5_000) })
              .then(() => (adminReads += 1))
              .catch(() => undefined);
        })();
        inflight.add(request);
        void request.finally(() => inflight.delete(request));
        await sleep(1000 / rate);
      }
      await Promise.all(inflight);
    })();

    const chaos = (async () => {
      while (Date.now() < end - 15_000) {
        await sleep(between(8_000, 20_000));
        if (Date.now() >= end - 15_000) break;
        const target = TARGETS[Math.floor(Math.random() * TARGETS.length)]!;
        const down = between(1_000, 10_000);
        log(`kill ${target}, restart in ${(down / 1000).toFixed(1)} s`);
        kills[target] = (kills[target] ?? 0) + 1;
        busy.add(target);
        await kill(target);
        await sleep(down);
        await start(target).catch((error: unknown) => log(`restart of ${target} failed: ${String(error)}`));
        busy.delete(target);
        lastRestart = Date.now();
      }
    })();

    const supervisor = setInterval(supervise, 2_000);
    await Promise.all([load, chaos]);
    clearInterval(supervisor);
    supervise();
    log(`load done: ${acked.length} events acked, ${rejected} rejected or failed; waiting for convergence`);

    // convergence: every acked event stored, every acked signup's welcome email sent or parked in the DLQ
    // (a start kept during a Temporal kill is neither until the worker's relay has made it)
    let convergedSeconds: number | null = null;
    const deadline = Date.now() + (options.convergeSeconds ?? 600) * 1000;
    let tally: Outcomes = { stored: 0, started: 0, startedOnce: 0, startedTwice: 0, pending: 0, sent: 0, failed: 0, parked: 0 };
    let lastLog = 0;
    while (Date.now() < deadline) {
      supervise();
      try {
        tally = await countOutcomes(db, acked);
      } catch {
        // the database may still be recovering from its last kill
      }
      if (Date.now() - lastLog > 10_000) {
        lastLog = Date.now();
        log(`converging: ${JSON.stringify(tally)} of ${acked.length} acked`);
      }
      if (tally.stored === acked.length && tally.sent + tally.failed + tally.parked >= acked.length) {
        convergedSeconds = (Date.now() - lastRestart) / 1000;
        break;
      }
      await sleep(1_000);
    }
    const store = (await (await fetch(`http://127.0.0.1:${ports.ses}/store`)).json()) as { emails: { destination: { to: string[] } }[] };
    const perAddress = new Map<string, number>();
    for (const email of store.emails) for (const to of email.destination.to) perAddress.set(to, (perAddress.get(to) ?? 0) + 1);
    const ackedAddresses = new Set(acked.map((userId) => `${userId}@chaos.example`));
    const sentAddresses = [...perAddress.keys()].filter((address) => ackedAddresses.has(address));
    const duplicateSends = [...perAddress.values()].reduce((sum, count) => sum + Math.max(0, count - 1), 0);
    const dlq = await retry(() =>
      db!
        .selectFrom('dlqEntries')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow(),
    );
    return {
      minutes: options.minutes,
      kills,
      eventsAcked: acked.length,
      eventsRejected: rejected,
      eventsStored: tally.stored,
      eventsLost: acked.length - tally.stored,
      enrollmentsExpected: acked.length,
      enrollmentsStarted: tally.started,
      enrollmentsStartedOnce: tally.startedOnce,
      enrollmentsStartedTwice: tally.startedTwice,
      journeyStartsPending: tally.pending,
      emailsExpected: acked.length,
      emailsSent: sentAddresses.length,
      emailsFailedToDlq: tally.failed,
      journeyStartsToDlq: tally.parked,
      emailsLost: acked.length - sentAddresses.length - tally.failed - tally.parked,
      duplicateSends,
      dlqEntries: dlq.n,
      trackingHits,
      adminReads,
      convergedSeconds,
    };
  } finally {
    for (const [name, child] of children) {
      child.kill(name === 'ses' ? 'SIGTERM' : 'SIGKILL');
      await exited(child);
    }
    spawnSync('bash', [path.join(repoRoot, 'scripts/temporal-postgres.sh'), 'down'], { env: temporalEnv });
    await db?.destroy().catch(() => undefined);
    await redis.kill();
    await postgres.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

interface Outcomes {
  stored: number;
  started: number;
  startedOnce: number;
  startedTwice: number;
  /** starts kept while Temporal was down, not yet made by the relay */
  pending: number;
  sent: number;
  failed: number;
  /** journey starts parked in the DLQ (refused, or not made within JOURNEY_START_RETRY_HOURS), with no send since */
  parked: number;
}

/** A read after the chaos: PostgreSQL may still be finishing its crash recovery. */
async function retry<T>(read: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await read();
    } catch (error) {
      if (attempt >= 30) throw error;
      await sleep(1_000);
    }
  }
}

async function countOutcomes(db: Db, acked: readonly string[]): Promise<Outcomes> {
  const row = await sql<Outcomes>`
    select
      (select count(distinct user_id)::int from events where event = 'user.signed_up' and user_id = any(${acked}::text[])) as stored,
      (select count(distinct user_id)::int from journey_states where journey_id = 'welcome-series' and user_id = any(${acked}::text[])) as started,
      (select count(*)::int from (select user_id from journey_states where journey_id = 'welcome-series' and user_id = any(${acked}::text[])
         group by user_id having count(*) = 1) once) as "startedOnce",
      (select count(*)::int from (select user_id from journey_states where journey_id = 'welcome-series' and user_id = any(${acked}::text[])
         group by user_id having count(*) > 1) twice) as "startedTwice",
      (select count(distinct user_id)::int from event_effects where kind = 'start' and user_id = any(${acked}::text[])) as pending,
      (select count(distinct user_id)::int from email_sends where template_key = 'welcome' and status in ('sent', 'delivered', 'opened', 'clicked')
         and user_id = any(${acked}::text[])) as sent,
      (select count(distinct user_id)::int from email_sends where template_key = 'welcome' and status = 'failed' and user_id = any(${acked}::text[])) as failed,
      (select count(distinct payload -> 'request' ->> 'userId')::int from dlq_entries d where source = 'journey'
         and payload -> 'request' ->> 'userId' = any(${acked}::text[])
         and not exists (select 1 from email_sends s where s.user_id = d.payload -> 'request' ->> 'userId')) as parked`.execute(db);
  return row.rows[0]!;
}

export function formatReport(report: ChaosReport): string {
  const kills = Object.entries(report.kills)
    .map(([target, count]) => `${target} ${count}`)
    .join(', ');
  return [
    `chaos run: ${report.minutes} min; SIGKILLs: ${kills}`,
    `events      acked ${report.eventsAcked}  stored ${report.eventsStored}  LOST (acked, not stored) ${report.eventsLost}  (rejected/failed requests: ${report.eventsRejected})`,
    `enrollments expected ${report.enrollmentsExpected}  started ${report.enrollmentsStarted}  exactly once ${report.enrollmentsStartedOnce}  ` +
      `twice or more ${report.enrollmentsStartedTwice}  still pending ${report.journeyStartsPending}  start parked→DLQ ${report.journeyStartsToDlq}`,
    `emails      expected ${report.emailsExpected}  sent ${report.emailsSent}  send failed→DLQ ${report.emailsFailedToDlq}  ` +
      `${report.convergedSeconds === null ? 'UNACCOUNTED (still pending or lost: no convergence)' : 'LOST'} ${report.emailsLost}  duplicates at SES ${report.duplicateSends}`,
    `DLQ entries ${report.dlqEntries}; tracking hits ${report.trackingHits}; admin reads ${report.adminReads}`,
    `converged ${report.convergedSeconds === null ? 'NOT within the wait' : `${report.convergedSeconds.toFixed(1)} s after the last restart`}`,
  ].join('\n');
}
