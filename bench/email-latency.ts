/**
 * npm run bench -- email-latency — event → email accepted by SES, at a fixed arrival rate (open
 * model): BENCH_RATE events/s (default 20) for BENCH_LATENCY_SECONDS (default 15), each a
 * `user.signed_up` for a new user, which starts welcome-series whose first step sends the welcome
 * email. Latency = the send's `sent_at` (written right after SES answered with a message id) minus
 * the moment the event request was issued. A real worker (createWorker, as apps/worker builds
 * it) polls the bench queue in this process; the SES endpoint is the dev stack's emulator.
 * Goals p50 ≤ 120 ms and p99 ≤ 500 ms, as rows against the goal (bench/results/email-latency.json);
 * the histogram is printed.
 */
import { randomUUID } from 'node:crypto';
import { createApiKey } from '@waymark/core/auth/api-keys';
import { createLogger } from '@waymark/core/logging/logger';
import { createWorker } from '../apps/worker/src/worker';
import { startBenchServer } from './lib/bench-server';
import { limitRow, writeBenchResults } from './lib/results';

const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://waymark:waymark@127.0.0.1:5432/waymark_bench_latency';
const RATE = Number(process.env.BENCH_RATE ?? 20);
const SECONDS = Number(process.env.BENCH_LATENCY_SECONDS ?? 15);
const BUCKETS = [50, 80, 100, 120, 150, 200, 300, 500, 1000, 2000, Number.POSITIVE_INFINITY];

const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

async function main(): Promise<void> {
  const taskQueue = `waymark-bench-latency-${process.pid}`;
  const { url, app, deps, config } = await startBenchServer(databaseUrl, {
    TEMPORAL_TASK_QUEUE: taskQueue,
    SES_ENDPOINT: process.env.SES_ENDPOINT ?? 'http://127.0.0.1:8005',
  });
  const logger = createLogger({ level: 'warn', name: 'bench-worker', format: 'json' });
  const { worker, close } = await createWorker({ config, db: deps.db, logger });
  const running = worker.run();
  const { key } = await createApiKey(deps.db, { name: `bench-${Date.now()}`, scopes: ['ingest'], expiresAt: null });
  const run = randomUUID().slice(0, 8);

  const post = (n: number) =>
    fetch(`${url}/v1/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'user.signed_up', userId: `lat-${run}-${n}`, email: `lat-${run}-${n}@bench.local` }),
    }).then((response) => {
      if (response.status !== 202) throw new Error(`event ${n} answered ${response.status}`);
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
  let rows: { toEmail: string; sentAt: Date | null }[] = [];
  for (;;) {
    rows = await deps.db
      .selectFrom('emailSends')
      .select(['toEmail', 'sentAt'])
      .where('toEmail', 'like', `lat-${run}-%`)
      .where('sentAt', 'is not', null)
      .execute();
    if (rows.filter((row) => issuedAt.has(row.toEmail)).length >= total || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const latencies = rows
    .filter((row) => issuedAt.has(row.toEmail))
    .map((row) => row.sentAt!.getTime() - issuedAt.get(row.toEmail)!)
    .sort((a, b) => a - b);
  const missing = total - latencies.length;

  worker.shutdown();
  await running;
  await close();
  await app.close();
  const ids: string[] = [];
  for await (const execution of deps.temporal.client.workflow.list({ query: `TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running'` }))
    ids.push(execution.workflowId);
  for (let i = 0; i < ids.length; i += 50) {
    await Promise.allSettled(ids.slice(i, i + 50).map((id) => deps.temporal.client.workflow.getHandle(id).terminate('benchmark cleanup')));
  }
  await deps.close();

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
