/**
 * npm run bench -- broadcast — one broadcast to every contact of a fresh database
 * (BENCH_BROADCAST_CONTACTS, default 100,000, seeded in SQL), sent by a worker process and an api
 * process of the bench's own to an SES emulator of its own (the shared one would hold every
 * message in memory; this one is emptied every few seconds). Rows (bench/results/broadcast.json):
 *  - sustained sends per second (the 10th to the 90th percentile of the sends' `sent_at`, so the
 *    audience snapshot at the start and the last chunk's tail do not count) against a bare loop of
 *    SESv2 SendEmail calls with one of the broadcast's own messages, on the same emulator, in the
 *    same run, BENCH_BROADCAST_BASELINE_CONCURRENCY calls in flight (default 10): goal ≥ 0.5;
 *  - the whole broadcast, `send` to `sent`: goal ≤ 20 minutes (a run cut off by
 *    BENCH_BROADCAST_TIMEOUT_MINUTES, default 45, is cancelled and its row projected and named so);
 *  - the worker's RSS peak, sampled from /proc every second while it sends: goal ≤ 1 GiB;
 *  - p99 of GET /v1/admin/broadcasts/{id} and of GET /v1/admin/broadcasts while it sends, one
 *    read after another every 200 ms: goal ≤ 100 ms each.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { loadConfig } from '@waymark/core/config/config';
import { createDatabase, type Db } from '@waymark/core/db/database';
import { createSesTransport, type OutgoingEmail } from '@waymark/email/ses-transport';
import type { EmulatorEmail } from '../test/email-emulator';
import { freePort } from '../test/free-port';
import { terminateRunsOnQueue } from '../test/task-queue-cleanup';
import { waitForPort } from '../test/throwaway-services';
import { Connection } from '@temporalio/client';
import { temporalClient } from '@waymark/runtime/client';
import { temporalConnectionOptions } from '../temporal/connection';
import { startApiProcess, type ApiProcess } from './lib/api-process';
import { benchEnv, prepareBenchDatabase } from './lib/bench-server';
import { startBenchWorker, type BenchWorker } from './lib/bench-worker';
import { limitRow, ratioRow, writeBenchResults } from './lib/results';

const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://waymark:waymark@127.0.0.1:5432/waymark_bench_broadcast';
const CONTACTS = Number(process.env.BENCH_BROADCAST_CONTACTS ?? 100_000);
const BASELINE_CONCURRENCY = Number(process.env.BENCH_BROADCAST_BASELINE_CONCURRENCY ?? 10);
/** the bare loop's length: long enough for a steady rate, short beside the broadcast */
const BASELINE_SENDS = Number(process.env.BENCH_BROADCAST_BASELINE_SENDS ?? Math.min(10_000, Math.max(1_000, CONTACTS / 10)));
const TIMEOUT_MINUTES = Number(process.env.BENCH_BROADCAST_TIMEOUT_MINUTES ?? 45);
const SEED_BATCH = 50_000;
const repoRoot = path.resolve(import.meta.dirname, '..');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const percentile = (list: readonly number[], p: number) =>
  [...list].sort((a, b) => a - b)[Math.min(list.length - 1, Math.max(0, Math.ceil(p * list.length) - 1))] ?? 0;

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

async function seedContacts(db: Db, domain: string): Promise<void> {
  for (let from = 1; from <= CONTACTS; from += SEED_BATCH) {
    const to = Math.min(CONTACTS, from + SEED_BATCH - 1);
    await sql`insert into contacts (external_id, email, properties, first_seen_at, last_seen_at, created_at, updated_at)
      select 'bcast-' || g, 'r' || g || '@' || ${domain}, jsonb_build_object('firstName', 'Reader ' || g, 'plan', case when g % 3 = 0 then 'pro' else 'free' end),
        now(), now(), now(), now()
      from generate_series(${from}::int, ${to}::int) g`.execute(db);
  }
  await sql`analyze`.execute(db);
}

/** Sends per second between the 10th and the 90th percentile of the broadcast's send times. */
async function sustainedRate(db: Db, broadcastId: string): Promise<{ rate: number; sent: number }> {
  const row = await sql<{ sent: number; p10: number | null; p90: number | null }>`
    select count(*)::int as sent,
      extract(epoch from percentile_disc(0.1) within group (order by sent_at))::float8 as p10,
      extract(epoch from percentile_disc(0.9) within group (order by sent_at))::float8 as p90
    from email_sends where broadcast_id = ${broadcastId} and sent_at is not null`.execute(db);
  const { sent, p10, p90 } = row.rows[0]!;
  if (p10 === null || p90 === null || p90 <= p10) return { rate: 0, sent };
  return { rate: (0.8 * sent) / (p90 - p10), sent };
}

/** The bare side: BASELINE_SENDS SendEmail calls of one message, BASELINE_CONCURRENCY in flight, after a warm-up. */
async function bareSendRate(send: (email: OutgoingEmail) => Promise<unknown>, email: OutgoingEmail): Promise<number> {
  const loop = async (count: number) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: BASELINE_CONCURRENCY }, async () => {
        while (next < count) {
          next += 1;
          await send(email);
        }
      }),
    );
  };
  await loop(200);
  const started = performance.now();
  await loop(BASELINE_SENDS);
  return BASELINE_SENDS / ((performance.now() - started) / 1000);
}

async function main(): Promise<void> {
  if (!Number.isInteger(CONTACTS) || CONTACTS < 100) throw new Error('BENCH_BROADCAST_CONTACTS must be an integer ≥ 100');
  const taskQueue = `waymark-bench-broadcast-${process.pid}`;
  const adminKey = `bench-${randomUUID()}-${randomUUID()}`;
  const domain = `${randomUUID().slice(0, 8)}.bench-broadcast.example`;
  const sesPort = await freePort();
  const sesUrl = `http://127.0.0.1:${sesPort}`;
  const env = benchEnv(databaseUrl, { TEMPORAL_TASK_QUEUE: taskQueue, ADMIN_API_KEY: adminKey, SES_ENDPOINT: sesUrl });
  const config = loadConfig(env);
  const ses = spawn(path.join(repoRoot, 'node_modules/.bin/aws-ses-v2-local'), ['--host', '127.0.0.1', '--port', String(sesPort)], { stdio: 'ignore' });
  const db = createDatabase({ connectionString: databaseUrl, max: 2 });
  const connection = await Connection.connect(temporalConnectionOptions(config.temporal));
  const client = temporalClient(connection, config.temporal.namespace, config.encryptionKeys, false);
  let processes: [ApiProcess, BenchWorker] | undefined;
  try {
    await Promise.all([prepareBenchDatabase(databaseUrl), waitForPort(sesPort)]);
    const seeding = Date.now();
    await seedContacts(db, domain);
    console.log(`seeded ${CONTACTS} contacts in ${((Date.now() - seeding) / 1000).toFixed(0)} s`);
    processes = await Promise.all([startApiProcess(env, 'broadcast.api'), startBenchWorker(env, 'broadcast.worker')]);
    const [api, worker] = processes;
    const call = async (method: string, route: string, body?: unknown) => {
      const response = await fetch(`${api.url}${route}`, {
        method,
        headers: { authorization: `Bearer ${adminKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      if (response.status >= 300) throw new Error(`${method} ${route} answered ${response.status}: ${text.slice(0, 300)}`);
      return JSON.parse(text) as { broadcast: { id: string; status: string; stats?: { sent?: number } } };
    };

    const subject = `Bench broadcast ${domain}`;
    const { broadcast } = await call('POST', '/v1/admin/broadcasts', {
      name: `bench ${domain}`,
      templateKey: 'welcome',
      category: 'product-updates',
      audience: { all: true },
      subject,
    });
    // warm both reads (JIT, pools) before any is timed
    await call('GET', `/v1/admin/broadcasts/${broadcast.id}`);
    await call('GET', '/v1/admin/broadcasts?limit=20');

    const workerRss: number[] = [];
    const reads = { detail: [] as number[], list: [] as number[] };
    let sample: EmulatorEmail | undefined;
    let finished = false;
    const sending = Date.now();
    await call('POST', `/v1/admin/broadcasts/${broadcast.id}/send`);

    const sampler = (async () => {
      let tick = 0;
      while (!finished) {
        workerRss.push(rssMb(worker.pid));
        // the emulator keeps every message in memory: keep one for the bare loop, then empty it
        if (++tick % 5 === 0) {
          if (sample === undefined) {
            const store = (await (await fetch(`${sesUrl}/store`)).json()) as { emails: EmulatorEmail[] };
            sample = store.emails.find((email) => email.subject === subject);
          }
          await fetch(`${sesUrl}/clear-store`, { method: 'POST' });
        }
        await sleep(1_000);
      }
    })();
    const reader = (async () => {
      let turn = 0;
      while (!finished) {
        const detail = turn++ % 2 === 0;
        const started = performance.now();
        await call('GET', detail ? `/v1/admin/broadcasts/${broadcast.id}` : '/v1/admin/broadcasts?limit=20');
        (detail ? reads.detail : reads.list).push(performance.now() - started);
        await sleep(200);
      }
    })();

    let status = 'sending';
    let lastLog = 0;
    const deadline = sending + TIMEOUT_MINUTES * 60_000;
    while (Date.now() < deadline) {
      const { broadcast: now } = await call('GET', `/v1/admin/broadcasts/${broadcast.id}`);
      status = now.status;
      if (status !== 'sending' && status !== 'scheduled') break;
      if (Date.now() - lastLog > 30_000) {
        lastLog = Date.now();
        console.log(
          `+${((Date.now() - sending) / 1000).toFixed(0)} s: ${now.stats?.sent ?? '?'} of ${CONTACTS} sent; worker RSS ${workerRss.at(-1)?.toFixed(0) ?? '?'} MB`,
        );
      }
      await sleep(2_000);
    }
    const seconds = (Date.now() - sending) / 1000;
    finished = true;
    await Promise.all([sampler, reader]);
    // cut off by the timeout (a short run on a busy box): stopped, and its duration projected from what it sent
    const cutOff = status === 'sending' || status === 'scheduled';
    if (cutOff) await call('POST', `/v1/admin/broadcasts/${broadcast.id}/cancel`);
    const { rate, sent } = await sustainedRate(db, broadcast.id);
    console.log(`broadcast ${cutOff ? 'cut off' : status} after ${seconds.toFixed(0)} s: ${sent} sent, ${rate.toFixed(1)} sends/s sustained`);
    // The emulator's message ids are random 9-digit numbers: at 100,000 sends a few collide on the
    // unique provider-id index, and such a send ends "delivery unknown" (it did reach the emulator).
    // Real SES ids are unique, so these are named apart from any other failure.
    const failures = await sql<{ failed: number; collisions: number }>`
      select count(*)::int as failed, count(*) filter (where e.error_message like '%a message id another send already holds')::int as collisions
      from broadcast_recipients r left join email_sends e on e.id = r.email_send_id
      where r.broadcast_id = ${broadcast.id} and r.status = 'failed'`.execute(db);
    console.log(
      `${failures.rows[0]!.failed} recipients failed, ${failures.rows[0]!.collisions} of them on a collision of the emulator's random message ids (email_sends_provider_message_idx)`,
    );
    await Promise.all([worker.stop(), api.stop()]);
    if (!cutOff && status !== 'sent') throw new Error(`the broadcast ended ${status} with ${sent} of ${CONTACTS} sent`);
    if (sent === 0) throw new Error(`nothing was sent within ${TIMEOUT_MINUTES} minutes`);
    if (sample === undefined) throw new Error('no message of the broadcast reached the emulator');

    const transport = createSesTransport({ region: config.email.sesRegion, endpoint: sesUrl, apiKey: config.email.providerApiKey });
    const message: OutgoingEmail = {
      from: sample.from,
      to: sample.destination.to[0]!,
      subject: sample.subject,
      html: sample.body.html ?? '',
      text: sample.body.text ?? '',
      headers: sample.headers ?? [],
    };
    const baseline = await bareSendRate((email) => transport.send(email), message);
    console.log(`bare SendEmail loop: ${baseline.toFixed(1)} sends/s (${BASELINE_CONCURRENCY} in flight)`);

    const peak = Math.max(...workerRss);
    const size = CONTACTS.toLocaleString('en');
    writeBenchResults('broadcast', [
      ratioRow(`broadcast to ${size}: sustained sends/s vs a bare SendEmail loop (${BASELINE_CONCURRENCY} in flight)`, 'sends/s', rate, baseline, 0.5),
      cutOff
        ? limitRow(
            `broadcast to ${size}: send → sent, PROJECTED (cut off after ${seconds.toFixed(0)} s with ${sent} sent: BENCH_BROADCAST_TIMEOUT_MINUTES)`,
            's',
            (seconds * CONTACTS) / sent,
            1_200,
          )
        : limitRow(`broadcast to ${size}: send → sent`, 's', seconds, 1_200),
      limitRow(`broadcast to ${size}: worker RSS peak`, 'MB', peak, 1_024),
      limitRow(
        `broadcast to ${size}: GET /v1/admin/broadcasts/{id} p99 while sending (${reads.detail.length} reads)`,
        'ms',
        percentile(reads.detail, 0.99),
        100,
      ),
      limitRow(`broadcast to ${size}: GET /v1/admin/broadcasts p99 while sending (${reads.list.length} reads)`, 'ms', percentile(reads.list, 0.99), 100),
    ]);
  } finally {
    await Promise.all(processes?.map((child) => child.stop()) ?? []);
    await terminateRunsOnQueue(client, taskQueue);
    await connection.close();
    await db.destroy();
    ses.kill('SIGTERM');
  }
}

main().catch((error: unknown) => {
  console.error('bench broadcast failed:', error);
  process.exit(1);
});
