/**
 * npm run bench -- email-latency — event → email accepted by SES, and what each process spends on
 * it. Every event is a `user.signed_up` for a new user, which starts welcome-series whose first
 * step sends the welcome email. The api (apps/api/src/server.ts) and the worker (createWorker, as
 * apps/worker builds it) run as two child processes, as in production, so the bench's own timers
 * and queries never delay either; the SES endpoint is an emulator of the bench's own
 * (lib/ses-emulator-process.ts; SES_ENDPOINT names another), so its tens of thousands of emails
 * stay out of the shared emulator the integration tests read. Three phases, each drained before
 * the next:
 *
 * 1. CPU per event: BENCH_CPU_EVENTS (default 300) at BENCH_CPU_RATE events/s (default 10, under
 *    saturation), CPU time of each process read from /proc before the first event and after the
 *    last email (bench/lib/process-cpu.ts): api, worker (main thread, workflow threads, the rest),
 *    the Temporal server, Redis, the PostgreSQL backends of the bench database and, on the
 *    Postgres profile, of Temporal's databases. One row each plus the total (goal ≤ 45 ms on a 2-core box, docs/scaling.md),
 *    and the machine's pace around the phase (bench/lib/cpu-probe.ts), to tell the code from the VM.
 * 2. Sustained rate (open model): BENCH_RATE events/s (default 20 on the dev profile, 30 on the
 *    Postgres profile) for BENCH_LATENCY_SECONDS (default 300). Latency = the send's `sent_at`
 *    (written right after SES answered) minus the moment the event request was issued; p50 ≤ 120
 *    ms, p99 ≤ 500 ms (dev at 20/s) / 1 s (Postgres profile, or 30/s and more on either);
 *    histogram and per-stage p50 printed. Another rate than the default writes its own results
 *    file (e.g. `BENCH_RATE=30` on the dev profile: email-latency-30-per-second.json).
 * 3. Drain rate: BENCH_DRAIN_EVENTS (default 60 × the sustained rate) offered at twice the sustained
 *    rate; drain rate = events ÷ (last email − first event), the rate the box keeps up with when
 *    it is saturated throughout (goal: at least the sustained rate).
 *
 * BENCH_TRACING=1 runs the same phases with tracing on (docs/operations.md, "Tracing"): the api and
 * the worker export every span over OTLP/HTTP to a receiver in the bench's process, which keeps a
 * count and drops them; its rows and results file say "tracing on" (email-latency-tracing.json), so
 * the two runs side by side give tracing's cost. Without it tracing is off, as by default.
 *
 * The profile is WAYMARK_TEMPORAL (`dev`, default, or `postgres`) and names the rows and the
 * results file (email-latency.json, email-latency-postgres.json); TEMPORAL_ADDRESS picks the
 * server (bench/README.md). On the Postgres profile TEMPORAL_DB (default `temporal`) names
 * Temporal's databases, whose backends count as Temporal's PostgreSQL.
 */
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { Connection } from '@temporalio/client';
import { temporalClient } from '@waymark/runtime/client';
import { createApiKey } from '@waymark/core/auth/api-keys';
import { loadConfig } from '@waymark/core/config/config';
import { createDatabase, type Db } from '@waymark/core/db/database';
import { temporalConnectionOptions } from '../temporal/connection';
import { startApiProcess } from './lib/api-process';
import { benchEnv, prepareBenchDatabase } from './lib/bench-server';
import { startBenchWorker } from './lib/bench-worker';
import { sesEmulator } from './lib/ses-emulator-process';
import { cpuProbeMs } from './lib/cpu-probe';
import { cpuBetween, cpuSnapshot, pidListeningOn, trackBackends, type CpuSubjects } from './lib/process-cpu';
import { infoRow, limitRow, ratioRow, writeBenchResults, type BenchRow } from './lib/results';
import { startOtlpReceiver } from '../test/otlp-receiver';
import { terminateRunsOnQueue } from '../test/task-queue-cleanup';

const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://waymark:waymark@127.0.0.1:5432/waymark_bench_latency';
const PROFILE = process.env.WAYMARK_TEMPORAL === 'postgres' ? 'postgres' : 'dev';
const DEFAULT_RATE = PROFILE === 'postgres' ? 30 : 20;
const RATE = Number(process.env.BENCH_RATE ?? DEFAULT_RATE);
const SECONDS = Number(process.env.BENCH_LATENCY_SECONDS ?? 300);
// the goals: 20/s within 500 ms on the dev profile, 30/s within 1 s on the better of the two profiles
const P99_LIMIT = PROFILE === 'postgres' || RATE >= 30 ? 1000 : 500;
/** a run at another rate than the profile's default keeps its own file, so it does not replace the default run's rows */
const TRACING = process.env.BENCH_TRACING === '1' || process.env.BENCH_TRACING === 'true';
const RESULTS_NAME = `email-latency${PROFILE === 'postgres' ? '-postgres' : ''}${RATE === DEFAULT_RATE ? '' : `-${RATE}-per-second`}${TRACING ? '-tracing' : ''}`;
const CPU_EVENTS = Number(process.env.BENCH_CPU_EVENTS ?? 300);
const CPU_RATE = Number(process.env.BENCH_CPU_RATE ?? 10);
const DRAIN_EVENTS = Number(process.env.BENCH_DRAIN_EVENTS ?? RATE * 60);
const DRAIN_OFFERED = Number(process.env.BENCH_DRAIN_OFFERED_RATE ?? RATE * 2);
const BUCKETS = [50, 80, 100, 120, 150, 200, 300, 500, 1000, 2000, 5000, Number.POSITIVE_INFINITY];

const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface SentRow {
  toEmail: string;
  sentAt: Date | null;
  enteredAt: Date;
  queuedAt: Date;
}

interface Phase {
  /** address → when its event was issued / answered */
  issuedAt: Map<string, number>;
  answeredAt: Map<string, number>;
  rows: SentRow[];
  /** accepted events whose email was not sent in time */
  missing: number;
  /** events the api did not accept (non-202 or no answer) */
  refused: number;
}

function poster(url: string, key: string) {
  /** `count` events at `rate` per second (open model), then every email out or `graceMs` after the last post */
  return async function runPhase(db: Db, prefix: string, count: number, rate: number, graceMs: number): Promise<Phase> {
    const issuedAt = new Map<string, number>();
    const answeredAt = new Map<string, number>();
    const refused: number[] = [];
    const requests: Promise<void>[] = [];
    const start = Date.now();
    for (let n = 0; n < count; n += 1) {
      const due = start + (n * 1000) / rate;
      const wait = due - Date.now();
      if (wait > 0) await sleep(wait);
      const email = `${prefix}-${n}@bench.local`;
      issuedAt.set(email, Date.now());
      requests.push(
        fetch(`${url}/v1/events`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'user.signed_up', userId: `${prefix}-${n}`, email }),
        }).then(
          (response) => {
            // an overloaded api answers 503 (no free database client within 5 s): counted, not fatal
            if (response.status === 202) answeredAt.set(email, Date.now());
            else refused.push(response.status);
          },
          () => {
            refused.push(0);
          },
        ),
      );
    }
    await Promise.all(requests);
    console.log(
      `  ${count} events posted at ${rate}/s in ${((Date.now() - start) / 1000).toFixed(1)} s${refused.length > 0 ? `; ${refused.length} not accepted (${[...new Set(refused)].join(', ')})` : ''}`,
    );
    const expected = count - refused.length;
    const deadline = Date.now() + graceMs;
    let rows: SentRow[] = [];
    for (;;) {
      rows = await db
        .selectFrom('emailSends')
        .innerJoin('journeyStates', 'journeyStates.id', 'emailSends.journeyStateId')
        .select(['emailSends.toEmail', 'emailSends.sentAt', 'journeyStates.createdAt as enteredAt', 'emailSends.createdAt as queuedAt'])
        .where('emailSends.toEmail', 'like', `${prefix}-%`)
        .where('emailSends.sentAt', 'is not', null)
        .execute();
      if (rows.length >= expected || Date.now() > deadline) break;
      await sleep(500);
    }
    return { issuedAt, answeredAt, rows, missing: expected - rows.length, refused: refused.length };
  };
}

/** Latencies (ms, sorted) and the per-stage p50 line of a phase. */
function latencies(phase: Phase): number[] {
  const { issuedAt, answeredAt, rows } = phase;
  const measured = rows.filter((row) => answeredAt.has(row.toEmail));
  const stage = (label: string, from: (row: SentRow) => number, to: (row: SentRow) => number) =>
    `${label} ${percentile(
      measured.map((row) => to(row) - from(row)).sort((a, b) => a - b),
      50,
    )} ms`;
  if (measured.length > 0) {
    // one clock: api, worker and PostgreSQL run on this machine
    console.log(
      `  stages, p50: ${[
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
  return rows.map((row) => row.sentAt!.getTime() - issuedAt.get(row.toEmail)!).sort((a, b) => a - b);
}

function printHistogram(sorted: readonly number[]): void {
  let lower = 0;
  for (const upper of BUCKETS) {
    const count = sorted.filter((ms) => ms > lower && ms <= upper).length + (lower === 0 ? sorted.filter((ms) => ms <= 0).length : 0);
    const label = upper === Number.POSITIVE_INFINITY ? `> ${lower} ms` : `${lower}–${upper} ms`;
    console.log(`  ${label.padEnd(14)} ${String(count).padStart(5)} ${'#'.repeat(Math.round((count / sorted.length) * 60))}`);
    lower = upper;
  }
}

const databaseName = (url: string) => new URL(url).pathname.slice(1);

async function main(): Promise<void> {
  const taskQueue = `waymark-bench-latency-${process.pid}`;
  const emulator = await sesEmulator('email-latency.ses');
  // tracing on: the api and worker export to a sink here (the spans are counted, not kept)
  const sink = TRACING ? await startOtlpReceiver({ keep: false }) : undefined;
  const env = benchEnv(databaseUrl, {
    TEMPORAL_TASK_QUEUE: taskQueue,
    SES_ENDPOINT: emulator.url,
    ...(sink === undefined ? {} : { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url }),
  });
  await prepareBenchDatabase(databaseUrl);
  const config = loadConfig(env);
  // the bench's own queries are left out of the PostgreSQL figures by their application name
  const db = createDatabase({ connectionString: databaseUrl, max: 2, applicationName: 'waymark-bench-probe' });
  const [api, worker] = await Promise.all([startApiProcess(env, 'email-latency.api'), startBenchWorker(env, 'email-latency.worker')]);
  const { key } = await createApiKey(db, { name: `bench-${Date.now()}`, scopes: ['ingest'], expiresAt: null });
  const run = randomUUID().slice(0, 8);
  const runPhase = poster(api.url, key);
  const temporalDb = process.env.TEMPORAL_DB ?? 'temporal';
  const subjects: CpuSubjects = {
    api: api.pid,
    worker: worker.pid,
    temporal: pidListeningOn(Number(config.temporal.address.split(':').at(-1))),
    redis: pidListeningOn(Number(new URL(config.cacheUrl).port || 6379)),
    postgres: {
      'PostgreSQL, Waymark database': [databaseName(databaseUrl)],
      ...(PROFILE === 'postgres' ? { 'PostgreSQL, Temporal databases': [temporalDb, `${temporalDb}_visibility`] } : {}),
    },
  };
  if (subjects.temporal === undefined) console.warn(`  Temporal server at ${config.temporal.address} not found in /proc: no Temporal CPU row`);
  const loadAverage = () =>
    loadavg()
      .map((n) => n.toFixed(1))
      .join(' ');
  const rows: BenchRow[] = [];
  const label = `${PROFILE} profile${TRACING ? ', tracing on' : ''}`;

  // warm-up: the worker's first workflow task and first send pay for JIT and pools
  console.log(`[email-latency] ${label}, Temporal ${config.temporal.address}; load average ${loadAverage()}`);
  await runPhase(db, `warm-${run}`, 20, 10, 30_000);

  // 1. CPU per event
  console.log(`[email-latency] CPU per event: ${CPU_EVENTS} events at ${CPU_RATE}/s`);
  await sleep(2_000);
  // read outside the window: the probe keeps a core busy for about a second
  const paceBefore = cpuProbeMs();
  const statementsBefore = await worker.statements();
  const before = await cpuSnapshot(db, subjects);
  const tracker = trackBackends(db, subjects);
  const cpuPhase = await runPhase(db, `cpu-${run}`, CPU_EVENTS, CPU_RATE, 300_000);
  const after = { ...(await cpuSnapshot(db, subjects)), backends: await tracker.snapshot() };
  await tracker.stop();
  const pace = (paceBefore + cpuProbeMs()) / 2;
  const statementsAfter = await worker.statements();
  const statements = statementsAfter.all - statementsBefore.all;
  const named = statementsAfter.named - statementsBefore.named;
  const spent = cpuBetween(before, after);
  const sent = cpuPhase.rows.length;
  const perEvent = (name: string) => (spent.get(name) ?? 0) / Math.max(1, sent);
  const shares = [
    ['api', 'api'],
    ['worker main thread', 'worker, main thread'],
    ['worker workflow threads', 'worker, workflow threads'],
    ['worker other threads', 'worker, other threads (Temporal core, GC, libuv)'],
    ['temporal', 'Temporal server'],
    ...Object.keys(subjects.postgres).map((name) => [name, name]),
    ['redis', 'Redis'],
  ] as const;
  let total = 0;
  for (const [key, name] of shares) {
    if (!spent.has(key)) continue;
    total += perEvent(key);
    rows.push(infoRow(`CPU per event (${label}): ${name}`, 'ms', perEvent(key)));
  }
  rows.push(limitRow(`CPU per event (${label}): total`, 'ms', total, 45));
  rows.push(infoRow(`machine pace during the CPU phase: fixed CPU probe (bench/lib/cpu-probe.ts), lower is faster`, 'ms', pace));
  rows.push(infoRow(`worker SQL statements per event (${label}), BEGIN/COMMIT included`, 'count', statements / Math.max(1, sent)));
  // by name: parsed and planned a few times per connection, not on every event (packages/core/src/db/named-statements.ts)
  rows.push(infoRow(`worker SQL statements per event sent unnamed (${label})`, 'count', (statements - named) / Math.max(1, sent)));
  console.log(
    `  ${sent} emails, ${(statements / Math.max(1, sent)).toFixed(1)} worker statements each (${((statements - named) / Math.max(1, sent)).toFixed(1)} unnamed), in ${((after.at - before.at) / 1000).toFixed(1)} s; CPU ms per event: ${shares
      .filter(([key]) => spent.has(key))
      .map(([key, name]) => `${name} ${perEvent(key).toFixed(1)}`)
      .join(' · ')} · total ${total.toFixed(1)}; CPU probe ${pace.toFixed(0)} ms; load average ${loadAverage()}`,
  );

  if (SECONDS > 0) await sustainedPhase();
  if (DRAIN_EVENTS > 0) await drainPhase();

  await Promise.all([worker.stop(), api.stop()]);
  await emulator.stop();
  if (sink !== undefined) {
    console.log(`[email-latency] tracing: ${sink.received} spans exported in ${sink.requests} requests`);
    await sink.close();
  }
  // the welcome-series runs sleep for two days: end them
  const connection = await Connection.connect(temporalConnectionOptions(config.temporal));
  const client = temporalClient(connection, config.temporal.namespace, config.encryptionKeys, false);
  await terminateRunsOnQueue(client, taskQueue);
  await connection.close();
  await db.destroy();
  writeBenchResults(RESULTS_NAME, rows);

  // 2. sustained rate
  async function sustainedPhase(): Promise<void> {
    console.log(`[email-latency] sustained: ${RATE} events/s for ${SECONDS} s`);
    const sustained = await runPhase(db, `lat-${run}`, RATE * SECONDS, RATE, 60_000);
    const sorted = latencies(sustained);
    if (sorted.length === 0) throw new Error('no email was sent');
    printHistogram(sorted);
    const p50 = percentile(sorted, 50);
    const p99 = percentile(sorted, 99);
    console.log(
      `  p50 ${p50} ms  p90 ${percentile(sorted, 90)} ms  p99 ${p99} ms  max ${sorted.at(-1)} ms  (${sorted.length} sent, ${sustained.missing} not sent within 60 s); load average ${loadAverage()}`,
    );
    rows.push(
      limitRow(`event → email accepted by SES (${label}), p50 at ${RATE} events/s for ${SECONDS} s`, 'ms', p50, 120),
      limitRow(`event → email accepted by SES (${label}), p99 at ${RATE} events/s for ${SECONDS} s`, 'ms', p99, P99_LIMIT),
      limitRow(`emails not sent within 60 s (${label}, ${RATE} events/s)`, 'count', sustained.missing, 0),
      limitRow(`events not accepted (${label}, ${RATE} events/s)`, 'count', sustained.refused, 0),
    );
  }

  // 3. drain rate: offered faster than the box can serve, so it is saturated from the first event to the last email
  async function drainPhase(): Promise<void> {
    console.log(`[email-latency] drain: ${DRAIN_EVENTS} events offered at ${DRAIN_OFFERED}/s`);
    const drain = await runPhase(db, `drain-${run}`, DRAIN_EVENTS, DRAIN_OFFERED, 600_000);
    const firstIssued = Math.min(...drain.issuedAt.values());
    const lastSent = Math.max(firstIssued + 1, ...drain.rows.map((row) => row.sentAt!.getTime()));
    const drainRate = drain.rows.length / ((lastSent - firstIssued) / 1000);
    console.log(
      `  ${drain.rows.length} emails in ${((lastSent - firstIssued) / 1000).toFixed(1)} s: ${drainRate.toFixed(1)} events/s${drainRate >= DRAIN_OFFERED * 0.95 ? ' (kept up with the offered rate: the drain rate is at least this)' : ''}; load average ${loadAverage()}`,
    );
    rows.push(ratioRow(`drain rate (${label}), events/s with one email each, vs the sustained-rate goal`, 'events/s', drainRate, RATE, 1));
  }
}

main().catch((error: unknown) => {
  console.error('bench email-latency failed:', error);
  process.exit(1);
});
