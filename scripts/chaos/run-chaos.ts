/**
 * The chaos run (`npm run chaos -- --minutes N`, and a 2-minute version in the integration
 * suite): mixed load (sign-ups for `welcome-series`, trials for `trial-conversion`) against an
 * api and a worker while the api, the worker, Redis, PostgreSQL and the Temporal server are
 * SIGKILLed at random moments and restarted 1–10 s later. Two kills are always among them: the
 * worker during a running broadcast to every contact, and Temporal, during whose outage half of the
 * trials so far subscribe (`subscription.started`, which exits their runs). Every service is an
 * instance of the run's own (own ports, own data directories, its own SES emulator with event
 * publishing in front); the shared dev stack is never touched. Then it waits for convergence and
 * compares each person's emails (what SES accepted) and journey outcome with the fault-free run of
 * the same stored events (`waymark simulate`'s engine: fault-free.ts).
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
import { EMAIL_SEND_ID_TAG } from '@waymark/email/ses-notification';
import { journeys } from '../../journeys';
import { throwawayPostgres, throwawayRedis, waitForPort } from '../../test/throwaway-services';
import { writeWorkflowBundle } from '../../apps/worker/src/workflow-bundle';
import { startSesEventPublisher, type SesEventPublisher } from '../ses-events/publisher';
import { compareWithFaultFree, type AcceptedEmail, type FaultFreeComparison } from './fault-free';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface ChaosOptions {
  minutes: number;
  /** first port of the block the run uses (default 7600: api, SES, Redis, PostgreSQL, Temporal + UI) */
  basePort?: number;
  /** events per second offered (default 4: two cores also host every service) */
  rate?: number;
  /** how long to wait for convergence after the load ends (default 600 s) */
  convergeSeconds?: number;
  /** contacts seeded for the broadcast besides the run's own sign-ups and trials (default 400) */
  broadcastContacts?: number;
  log?: (line: string) => void;
}

export interface ChaosReport {
  minutes: number;
  kills: Record<string, number>;
  /** every acknowledged event: sign-ups, trials and the trials' subscriptions */
  eventsAcked: number;
  trialsAcked: number;
  /** `subscription.started` acknowledged while the run's Temporal was down */
  subscriptionsDuringOutage: number;
  broadcast: { recipients: number; sentAtWorkerKill: number | null; status: string };
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
  /** emails of the fault-free run: each simulated journey send, one per eligible broadcast recipient */
  emailsExpected: number;
  /** messages the run's SES accepted */
  emailsAccepted: number;
  emailsFailedToDlq: number;
  journeyStartsToDlq: number;
  /** fault-free emails SES never accepted */
  emailsLost: number;
  /** a send id accepted twice, or one person's email of one journey or broadcast under two send ids */
  duplicateSends: number;
  dlqEntries: number;
  /** people (and broadcast recipients) compared with the fault-free run */
  peopleCompared: number;
  /** each missing, extra or different email, or wrong journey outcome */
  differences: string[];
  trackingHits: number;
  adminReads: number;
  convergedSeconds: number | null;
}

type Target = 'api' | 'worker' | 'redis' | 'postgres' | 'temporal';
/** the kills every run makes first, whatever the random ones after them */
type PlannedKill = 'worker during the broadcast' | 'temporal';
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
  const ports = { api: base, ses: base + 1, redis: base + 2, postgres: base + 3, sesEvents: base + 5, temporal: base + 10, temporalUi: base + 30 };
  const rate = options.rate ?? 4;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'waymark-chaos-'));
  const adminKey = `chaos-${randomUUID()}-${randomUUID()}`;
  const queue = `chaos-${randomUUID().slice(0, 8)}`;
  const webhookSecret = `chaos-sns-${randomUUID()}`;
  const configurationSet = 'waymark-chaos';
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
    // SES event publishing on, as on the local stack: an unknown send settles from SES's own events
    SES_ENDPOINT: `http://127.0.0.1:${ports.sesEvents}`,
    SES_CONFIGURATION_SET: configurationSet,
    SES_EVENT_PUBLISHING: 'true',
    EMAIL_PROVIDER_WEBHOOK_SECRET: webhookSecret,
    EMAIL_PROVIDER_SNS_DEV_CERT_URL: `http://127.0.0.1:${ports.sesEvents}/`,
    // a send the worker kill left unknown and SES never got is sent again 30 s after its claim
    DELIVERY_UNKNOWN_SETTLE_MINUTES: '0.5',
    // the broadcast takes long enough for its worker kill to land mid-send
    SES_MAX_SEND_RATE: '25',
    EMAIL_PROVIDER_API_KEY: 'chaos:chaos',
    EMAIL_FROM: 'Waymark Chaos <chaos@waymark.local>',
    AUTH_SECRET: 'chaos-auth-secret-at-least-32-characters-long',
    // sealed Temporal payloads, as production requires: the kills and the outage go through the codec
    ENCRYPTION_KEYS: `chaos-1:${'c4'.repeat(32)}`,
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
  let publisher: SesEventPublisher | undefined;
  const kills: Record<string, number> = Object.fromEntries(TARGETS.map((target) => [target, 0]));
  /** acknowledged events (user id, event name); the sign-ups' user ids apart, for their welcome-series starts */
  const ackedEvents: { userId: string; name: string }[] = [];
  const acked: string[] = [];
  const trials: string[] = [];
  /** every other trial subscribes, during a Temporal outage */
  const toSubscribe = new Set<string>();
  let subscriptionsDuringOutage = 0;
  const accepted: AcceptedEmail[] = [];
  const broadcast = { id: undefined as string | undefined, recipients: 0, sentAtWorkerKill: null as number | null };
  let rejected = 0;
  let trackingHits = 0;
  let adminReads = 0;
  try {
    log(`services on ports ${JSON.stringify(ports)}; data in ${dataDir}`);
    const ses = spawn(path.join(repoRoot, 'node_modules/.bin/aws-ses-v2-local'), ['--host', '127.0.0.1', '--port', String(ports.ses)], { stdio: 'ignore' });
    children.set('ses', ses);
    await Promise.all([redis.start(), postgres.start(), waitForPort(ports.ses), writeWorkflowBundle(appEnv.TEMPORAL_WORKFLOW_BUNDLE!)]);
    // in this process, never killed: SES itself does not go down with the stack
    publisher = await startSesEventPublisher({
      emulatorUrl: `http://127.0.0.1:${ports.ses}`,
      destinations: { [configurationSet]: `http://sns:${webhookSecret}@127.0.0.1:${ports.api}/v1/webhooks/email-provider` },
      port: ports.sesEvents,
      onAccepted: (message) =>
        accepted.push({ messageId: message.messageId, to: message.to, sendId: message.tags.find((tag) => tag.name === EMAIL_SEND_ID_TAG)?.value }),
    });
    const admin = createDatabase({ connectionString: postgres.url(), max: 1 });
    await sql`create database waymark`.execute(admin);
    await admin.destroy();
    db = createDatabase({ connectionString: databaseUrl, max: 2, onIdleClientError: () => undefined });
    const migrated = await migrateToLatest(db);
    if (migrated.error !== undefined) throw migrated.error;
    // the broadcast's audience besides the run's own people: enough for its worker kill to land mid-send
    await sql`insert into contacts (external_id, email, properties, first_seen_at, last_seen_at, created_at, updated_at)
      select 'reader-' || g, 'reader-' || g || '@chaos.example', '{}'::jsonb, now(), now(), now(), now()
      from generate_series(1, ${options.broadcastContacts ?? 400}::int) g`.execute(db);
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

    /** POST /v1/events once (a retried request under the same Idempotency-Key routes, never doubles); true when acknowledged */
    const postEvent = async (body: { name: string; userId: string; email: string; eventProperties?: Record<string, unknown> }): Promise<boolean> => {
      try {
        const response = await fetch(`${api}/v1/events`, {
          method: 'POST',
          headers: { ...headers, 'idempotency-key': `${body.userId}:${body.name}` },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(10_000),
        });
        if (response.status !== 202) return false;
        ackedEvents.push({ userId: body.userId, name: body.name });
        return true;
      } catch {
        return false;
      }
    };

    const load = (async () => {
      let n = 0;
      const inflight = new Set<Promise<void>>();
      while (Date.now() < end) {
        const index = n++;
        const request = (async () => {
          // one in three a paid-plan trial (trial-conversion), the rest sign-ups (welcome-series)
          if (index % 3 === 2) {
            const userId = `trial-${index}`;
            const ok = await postEvent({
              name: 'trial.started',
              userId,
              email: `${userId}@chaos.example`,
              eventProperties: { plan: index % 2 === 0 ? 'pro' : 'team' },
            });
            if (ok) {
              trials.push(userId);
              if (trials.length % 2 === 0) toSubscribe.add(userId);
            } else rejected += 1;
          } else {
            const userId = `chaos-${index}`;
            if (await postEvent({ name: 'user.signed_up', userId, email: `${userId}@chaos.example` })) acked.push(userId);
            else rejected += 1;
          }
          // a tracking hit and an admin read alongside (their outcome is not part of the tally)
          await fetch(`${api}/v1/t/o/${randomUUID()}`, { signal: AbortSignal.timeout(5_000) })
            .then(() => (trackingHits += 1))
            .catch(() => undefined);
          if (index % 5 === 0)
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

    /**
     * While Temporal is down, just before it comes back: the trials due to subscribe send
     * `subscription.started` whose run is asleep after its welcome (the exit's cancellation waits
     * in the outbox) or has not entered yet, its start still in the outbox (the entry finds the
     * exit and sends nothing: docs/operations.md, "What to expect of an outage"). Not a run caught
     * between its entry and its welcome: it would be exited before its first send, which the
     * fault-free run (the start at the trigger's instant) never sees.
     */
    const subscribeDuringOutage = async () => {
      const candidates = [...toSubscribe];
      const entering =
        candidates.length === 0
          ? []
          : await retry(() =>
              db!
                .selectFrom('journeyStates')
                .select('userId')
                .where('journeyId', '=', 'trial-conversion')
                .where('status', '=', 'active')
                .where('userId', 'in', candidates)
                .execute(),
            );
      const due = candidates.filter((userId) => !entering.some((row) => row.userId === userId));
      for (const userId of due) {
        if (await postEvent({ name: 'subscription.started', userId, email: `${userId}@chaos.example`, eventProperties: { plan: 'pro' } })) {
          toSubscribe.delete(userId);
          subscriptionsDuringOutage += 1;
        }
      }
      log(`${due.length} trials subscribed while temporal is down`);
    };

    /** Sends a broadcast to every contact, kills the worker once part of it is sent, and notes how much. */
    const killWorkerDuringBroadcast = async () => {
      const created = await retry(async () => {
        const response = await fetch(`${api}/v1/admin/broadcasts`, {
          method: 'POST',
          headers,
          body: JSON.stringify({
            name: 'chaos broadcast',
            templateKey: 'welcome',
            category: 'product-updates',
            audience: { all: true },
            subject: 'Chaos broadcast',
            data: { productName: 'Waymark' },
          }),
          signal: AbortSignal.timeout(10_000),
        });
        if (response.status !== 201) throw new Error(`broadcast: ${response.status} ${await response.text()}`);
        return ((await response.json()) as { broadcast: { id: string } }).broadcast.id;
      });
      broadcast.id = created;
      await retry(async () => {
        const response = await fetch(`${api}/v1/admin/broadcasts/${created}/send`, {
          method: 'POST',
          headers: { authorization: headers.authorization },
          signal: AbortSignal.timeout(10_000),
        });
        // 409: an earlier try that timed out did start it
        if (response.status !== 202 && response.status !== 409) throw new Error(`broadcast send: ${response.status}`);
      });
      const progress = () =>
        retry(async () => {
          const row = await sql<{ sent: number; size: number | null }>`
            select (select count(*)::int from email_sends where broadcast_id = ${created} and sent_at is not null) as sent,
                   (select audience_size from broadcasts where id = ${created}) as size`.execute(db!);
          return row.rows[0]!;
        });
      const waitUntil = Date.now() + 120_000;
      let now = await progress();
      while (Date.now() < waitUntil && (now.size === null || now.sent < Math.max(1, Math.floor(now.size / 10)))) {
        await sleep(100);
        now = await progress();
      }
      broadcast.recipients = now.size ?? 0;
      await kill('worker');
      broadcast.sentAtWorkerKill = (await progress()).sent;
      log(`worker killed with ${broadcast.sentAtWorkerKill} of ${broadcast.recipients} broadcast emails sent`);
    };

    const chaos = (async () => {
      const planned: PlannedKill[] = ['worker during the broadcast', 'temporal'];
      while (Date.now() < end - 15_000) {
        await sleep(between(8_000, 20_000));
        if (Date.now() >= end - 15_000) break;
        // the planned Temporal kill waits (up to the last kill slot) for trials to subscribe
        if (planned[0] === 'temporal') while (Date.now() < end - 25_000 && toSubscribe.size < 3) await sleep(1_000);
        const plannedKill = planned.shift();
        const target: Target =
          plannedKill === undefined ? TARGETS[Math.floor(Math.random() * TARGETS.length)]! : plannedKill === 'temporal' ? 'temporal' : 'worker';
        const down = between(1_000, 10_000);
        log(`kill ${plannedKill ?? target}, restart in ${(down / 1000).toFixed(1)} s`);
        kills[target] = (kills[target] ?? 0) + 1;
        busy.add(target);
        if (plannedKill === 'worker during the broadcast') await killWorkerDuringBroadcast();
        else await kill(target);
        await sleep(down);
        // after the outage's own trials are in, so some subscribe before their run could enter
        if (target === 'temporal') await subscribeDuringOutage().catch((error: unknown) => log(`subscriptions: ${String(error)}`));
        await start(target).catch((error: unknown) => log(`restart of ${target} failed: ${String(error)}`));
        busy.delete(target);
        lastRestart = Date.now();
      }
    })();

    const supervisor = setInterval(supervise, 2_000);
    await Promise.all([load, chaos]);
    clearInterval(supervisor);
    supervise();
    log(`load done: ${ackedEvents.length} events acked, ${rejected} rejected or failed; waiting for convergence`);

    // convergence: every acked event stored, no effect still kept for the relay, the broadcast sent,
    // and every person's emails and journey outcome those of the fault-free run, with nothing twice
    let convergedSeconds: number | null = null;
    const deadline = Date.now() + (options.convergeSeconds ?? 600) * 1000;
    let tally: Outcomes = { stored: 0, started: 0, startedOnce: 0, startedTwice: 0, pending: 0, effects: 0, broadcastStatus: 'none', failed: 0, parked: 0 };
    let comparison: FaultFreeComparison | undefined;
    const compare = () =>
      compareWithFaultFree(db!, {
        journeys,
        since: new Date(began),
        until: new Date(),
        broadcastIds: broadcast.id === undefined ? [] : [broadcast.id],
        accepted,
      });
    let lastLog = 0;
    while (Date.now() < deadline) {
      supervise();
      try {
        tally = await countOutcomes(db, { events: ackedEvents, signups: acked, broadcastId: broadcast.id ?? null });
        // the fault-free comparison only once the counts allow it (it replays every run)
        comparison = tally.stored === ackedEvents.length && tally.effects === 0 && tally.broadcastStatus !== 'sending' ? await compare() : undefined;
      } catch {
        // the database may still be recovering from its last kill
      }
      if (Date.now() - lastLog > 10_000) {
        lastLog = Date.now();
        log(
          `converging: ${JSON.stringify(tally)} of ${ackedEvents.length} acked` +
            (comparison === undefined ? '' : `; ${comparison.differences.length} differences, ${comparison.duplicates} duplicates`),
        );
      }
      if (comparison !== undefined && comparison.differences.length === 0 && comparison.duplicates === 0) {
        convergedSeconds = (Date.now() - lastRestart) / 1000;
        break;
      }
      await sleep(2_000);
    }
    comparison ??= await retry(compare);
    const dlq = await retry(() =>
      db!
        .selectFrom('dlqEntries')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow(),
    );
    return {
      minutes: options.minutes,
      kills,
      eventsAcked: ackedEvents.length,
      trialsAcked: trials.length,
      subscriptionsDuringOutage,
      broadcast: { recipients: broadcast.recipients, sentAtWorkerKill: broadcast.sentAtWorkerKill, status: tally.broadcastStatus },
      eventsRejected: rejected,
      eventsStored: tally.stored,
      eventsLost: ackedEvents.length - tally.stored,
      enrollmentsExpected: acked.length,
      enrollmentsStarted: tally.started,
      enrollmentsStartedOnce: tally.startedOnce,
      enrollmentsStartedTwice: tally.startedTwice,
      journeyStartsPending: tally.pending,
      emailsExpected: comparison.expected,
      emailsAccepted: accepted.length,
      emailsFailedToDlq: tally.failed,
      journeyStartsToDlq: tally.parked,
      emailsLost: comparison.lost,
      duplicateSends: comparison.duplicates,
      dlqEntries: dlq.n,
      peopleCompared: comparison.compared,
      differences: comparison.differences,
      trackingHits,
      adminReads,
      convergedSeconds,
    };
  } finally {
    for (const [name, child] of children) {
      child.kill(name === 'ses' ? 'SIGTERM' : 'SIGKILL');
      await exited(child);
    }
    await publisher?.close();
    spawnSync('bash', [path.join(repoRoot, 'scripts/temporal-postgres.sh'), 'down'], { env: temporalEnv });
    await db?.destroy().catch(() => undefined);
    await redis.kill();
    await postgres.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

interface Outcomes {
  /** acked events found stored */
  stored: number;
  started: number;
  startedOnce: number;
  startedTwice: number;
  /** sign-ups' starts kept while Temporal was down, not yet made by the relay */
  pending: number;
  /** rows of event_effects left (starts, signals, exits not yet carried out) */
  effects: number;
  /** the broadcast's status ('none' before it is created) */
  broadcastStatus: string;
  /** email sends failed for good */
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

async function countOutcomes(
  db: Db,
  input: { events: readonly { userId: string; name: string }[]; signups: readonly string[]; broadcastId: string | null },
): Promise<Outcomes> {
  const signups = input.signups;
  const row = await sql<Outcomes>`
    select
      (select count(*)::int from (select distinct e.user_id, e.event from events e
         join unnest(${input.events.map((event) => event.userId)}::text[], ${input.events.map((event) => event.name)}::text[]) a(user_id, event)
         on a.user_id = e.user_id and a.event = e.event) found) as stored,
      (select count(distinct user_id)::int from journey_states where journey_id = 'welcome-series' and user_id = any(${signups}::text[])) as started,
      (select count(*)::int from (select user_id from journey_states where journey_id = 'welcome-series' and user_id = any(${signups}::text[])
         group by user_id having count(*) = 1) once) as "startedOnce",
      (select count(*)::int from (select user_id from journey_states where journey_id = 'welcome-series' and user_id = any(${signups}::text[])
         group by user_id having count(*) > 1) twice) as "startedTwice",
      (select count(distinct user_id)::int from event_effects where kind = 'start' and user_id = any(${signups}::text[])) as pending,
      (select count(*)::int from event_effects) as effects,
      coalesce((select status from broadcasts where id = ${input.broadcastId}::uuid), 'none') as "broadcastStatus",
      (select count(*)::int from email_sends where status = 'failed') as failed,
      (select count(distinct payload -> 'request' ->> 'userId')::int from dlq_entries d where source = 'journey'
         and not exists (select 1 from email_sends s where s.user_id = d.payload -> 'request' ->> 'userId')) as parked`.execute(db);
  return row.rows[0]!;
}

export function formatReport(report: ChaosReport): string {
  const kills = Object.entries(report.kills)
    .map(([target, count]) => `${target} ${count}`)
    .join(', ');
  const settled = report.convergedSeconds !== null;
  const row = (label: string, value: string | number, detail = '') => `  ${label.padEnd(44)}${String(value).padStart(8)}${detail === '' ? '' : `   ${detail}`}`;
  const { broadcast } = report;
  return [
    `chaos run: ${report.minutes} min; SIGKILLs: ${kills}`,
    `  load: ${report.eventsAcked} events acked (${report.enrollmentsExpected} sign-ups, ${report.trialsAcked} trials, ` +
      `${report.subscriptionsDuringOutage} subscription.started while Temporal was down; ${report.eventsRejected} requests rejected or failed); ` +
      `broadcast to ${broadcast.recipients}, worker killed at ${broadcast.sentAtWorkerKill ?? 'never'} sent, ${broadcast.status}`,
    row('acknowledged events lost', report.eventsLost, `${report.eventsStored} of ${report.eventsAcked} stored`),
    row(
      settled ? 'emails lost' : 'emails not sent (NOT converged)',
      report.emailsLost,
      `${report.emailsExpected} in the fault-free run, ${report.emailsAccepted} accepted by SES`,
    ),
    row('duplicates at SES', report.duplicateSends, 'one send id twice, or one email of one journey or broadcast under two'),
    row('DLQ entries', report.dlqEntries, `${report.journeyStartsToDlq} journey starts, ${report.emailsFailedToDlq} failed sends`),
    row('differences from the fault-free run', report.differences.length, `${report.peopleCompared} people and recipients compared`),
    ...report.differences.slice(0, 10).map((difference) => `      ${difference}`),
    ...(report.differences.length > 10 ? [`      … and ${report.differences.length - 10} more`] : []),
    row(
      'sign-up journeys started exactly once',
      report.enrollmentsStartedOnce,
      `of ${report.enrollmentsExpected}; twice or more ${report.enrollmentsStartedTwice}, still pending ${report.journeyStartsPending}`,
    ),
    row('converged after the last restart (s)', settled ? report.convergedSeconds!.toFixed(1) : 'NOT', settled ? '' : 'within the wait'),
    `  tracking hits ${report.trackingHits}; admin reads ${report.adminReads}`,
  ].join('\n');
}
