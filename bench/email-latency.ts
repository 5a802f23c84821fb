/**
 * npm run bench -- email-latency — event → email accepted by SES, at a fixed arrival rate (open
 * model): BENCH_RATE events/s (default 20) for BENCH_LATENCY_SECONDS (default 15), each a
 * `user.signed_up` for a new user, which starts welcome-series whose first step sends the welcome
 * email. Latency = the send's `sent_at` (written right after SES answered with a message id) minus
 * the moment the event request was issued. The api (apps/api/src/server.ts) and the worker
 * (createWorker, as apps/worker builds it) run as two child processes, as in production, so the
 * bench's own timers and queries never delay either; the SES endpoint is the dev stack's emulator.
 * Goals p50 ≤ 120 ms and p99 ≤ 500 ms, as rows against the goal (bench/results/email-latency.json);
 * the histogram is printed.
 */
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { createApiKey } from '@waymark/core/auth/api-keys';
import { loadConfig } from '@waymark/core/config/config';
import { createDatabase } from '@waymark/core/db/database';
import { temporalConnectionOptions } from '../temporal/connection';
import { startApiProcess } from './lib/api-process';
import { benchEnv, prepareBenchDatabase } from './lib/bench-server';
import { startBenchWorker } from './lib/bench-worker';
import { limitRow, writeBenchResults } from './lib/results';
import { terminateRunsOnQueue } from '../test/task-queue-cleanup';

const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://waymark:waymark@127.0.0.1:5432/waymark_bench_latency';
const RATE = Number(process.env.BENCH_RATE ?? 20);
const SECONDS = Number(process.env.BENCH_LATENCY_SECONDS ?? 15);
const BUCKETS = [50, 80, 100, 120, 150, 200, 300, 500, 1000, 2000, Number.POSITIVE_INFINITY];

const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

async function main(): Promise<void> {
  const taskQueue = `waymark-bench-latency-${process.pid}`;
  const env = benchEnv(databaseUrl, { TEMPORAL_TASK_QUEUE: taskQueue, SES_ENDPOINT: process.env.SES_ENDPOINT ?? 'http://127.0.0.1:8005' });
  await prepareBenchDatabase(databaseUrl);
  const config = loadConfig(env);
  const db = createDatabase({ connectionString: databaseUrl, max: 2 });
  const [api, worker] = await Promise.all([startApiProcess(env, 'email-latency.api'), startBenchWorker(env, 'email-latency.worker')]);
  const { url } = api;
  const { key } = await createApiKey(db, { name: `bench-${Date.now()}`, scopes: ['ingest'], expiresAt: null });
  const run = randomUUID().slice(0, 8);

  const answeredAt = new Map<string, number>();
  const post = (n: number) =>
    fetch(`${url}/v1/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'user.signed_up', userId: `lat-${run}-${n}`, email: `lat-${run}-${n}@bench.local` }),
    }).then((response) => {
      if (response.status !== 202) throw new Error(`event ${n} answered ${response.status}`);
      answeredAt.set(`lat-${run}-${n}@bench.local`, Date.now());
    });

  // warm-up: the worker's first workflow task and first send pay for JIT and pools
  for (let n = 0; n < 5; n += 1) await post(-1 - n);
  await new Promise((resolve) => setTimeout(resolve, 3_000));

  const issuedAt = new Map<string, number>();
  const requests: Promise<void>[] = [];
  const total = RATE * SECONDS;
  const start = Date.now();
  for (let n = 0; n < total; n += 1) {
    const due = start + (n * 1000) / RATE;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    issuedAt.set(`lat-${run}-${n}@bench.local`, Date.now());
    requests.push(post(n));
  }
  await Promise.all(requests);
  console.log(`${total} events posted at ${RATE}/s in ${((Date.now() - start) / 1000).toFixed(1)} s`);

  // every email out (or a 60 s cap), then latencies from the send rows
  const deadline = Date.now() + 60_000;
  let rows: { toEmail: string; sentAt: Date | null; enteredAt: Date; queuedAt: Date }[] = [];
  for (;;) {
    rows = await db
      .selectFrom('emailSends')
      .innerJoin('journeyStates', 'journeyStates.id', 'emailSends.journeyStateId')
      .select(['emailSends.toEmail', 'emailSends.sentAt', 'journeyStates.createdAt as enteredAt', 'emailSends.createdAt as queuedAt'])
      .where('emailSends.toEmail', 'like', `lat-${run}-%`)
      .where('emailSends.sentAt', 'is not', null)
      .execute();
    if (rows.filter((row) => issuedAt.has(row.toEmail)).length >= total || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const latencies = rows
    .filter((row) => issuedAt.has(row.toEmail))
    .map((row) => row.sentAt!.getTime() - issuedAt.get(row.toEmail)!)
    .sort((a, b) => a - b);
  const missing = total - latencies.length;
  // where the time goes, per stage (p50 over the sent emails; one clock: api, worker and
  // PostgreSQL run on this machine): the event answered, the run's entry committed (first
  // workflow task), the send row created (send activity started), the provider accepted it
  const measured = rows.filter((row) => issuedAt.has(row.toEmail) && answeredAt.has(row.toEmail));
  const stage = (label: string, from: (row: (typeof measured)[number]) => number, to: (row: (typeof measured)[number]) => number) =>
    `${label} ${percentile(
      measured.map((row) => to(row) - from(row)).sort((a, b) => a - b),
      50,
    )} ms`;
  if (measured.length > 0) {
    console.log(
      `stages, p50: ${[
        stage(
          'event → 202',
          (row) => issuedAt.get(row.toEmail)!,
          (row) => answeredAt.get(row.toEmail)!,
        ),
        stage(
          '202 → entry committed',
          (row) => answeredAt.get(row.toEmail)!,
          (row) => row.enteredAt.getTime(),
        ),
        stage(
          'entry → send row',
          (row) => row.enteredAt.getTime(),
          (row) => row.queuedAt.getTime(),
        ),
        stage(
          'send row → SES accepted',
          (row) => row.queuedAt.getTime(),
          (row) => row.sentAt!.getTime(),
        ),
      ].join(' · ')}`,
    );
  }

  await Promise.all([worker.stop(), api.stop()]);
  // the welcome-series runs sleep for two days: end them
  const connection = await Connection.connect(temporalConnectionOptions(config.temporal));
  const client = new Client({ connection, namespace: config.temporal.namespace });
  await terminateRunsOnQueue(client, taskQueue);
  await connection.close();
  await db.destroy();

  if (latencies.length === 0) throw new Error('no email was sent');
  let lower = 0;
  console.log('event → SES accepted, histogram:');
  for (const upper of BUCKETS) {
    const count = latencies.filter((ms) => ms > lower && ms <= upper).length + (lower === 0 ? latencies.filter((ms) => ms <= 0).length : 0);
    const label = upper === Number.POSITIVE_INFINITY ? `> ${lower} ms` : `${lower}–${upper} ms`;
    console.log(`  ${label.padEnd(14)} ${String(count).padStart(5)} ${'#'.repeat(Math.round((count / latencies.length) * 60))}`);
    lower = upper;
  }
  const p50 = percentile(latencies, 50);
  const p99 = percentile(latencies, 99);
  console.log(
    `p50 ${p50} ms  p90 ${percentile(latencies, 90)} ms  p99 ${p99} ms  max ${latencies.at(-1)} ms  (${latencies.length} sent, ${missing} not sent within 60 s)`,
  );
  writeBenchResults('email-latency', [
    limitRow(`event → email accepted by SES, p50 at ${RATE} events/s`, 'ms', p50, 120),
    limitRow(`event → email accepted by SES, p99 at ${RATE} events/s`, 'ms', p99, 500),
    limitRow('emails not sent within 60 s', 'count', missing, 0),
  ]);
}

main().catch((error: unknown) => {
  console.error('bench email-latency failed:', error);
  process.exit(1);
});
