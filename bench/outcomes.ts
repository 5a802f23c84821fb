/**
 * npm run bench -- outcomes — `GET /v1/admin/journeys/first-project/outcomes` (both arms, the lift,
 * byStep and the daily series) with 1,000,000 first-project enrollments and 2,000,000 events stored,
 * against a bare indexed read (`GET /bench/baseline/read/:id`, one SELECT by a unique index) on the
 * same api in the same run. BENCH_OUTCOMES_SCALE (default 1) multiplies both sizes: 0.01 is a
 * smoke run of 10,000 enrollments and 20,000 events.
 *
 * The seed is SQL (generate_series, in batches), not API calls, but it goes through the counter
 * triggers of migrations/0190 as the run path does: enrollments spread over 90 days, a fifth held
 * out (as first-project's 20 % holdout), each with the log row of its first step (the tips sent,
 * or skipped as held out), then an eighth of the treatment and a tenth of the holdout converting
 * (an UPDATE of `converted_at`, which the conversion trigger counts). The events: a
 * `project.created` per enrollment and the rest `project.published` and `page.viewed`. One
 * connection writes the seed, so its counters are in one shard of the eight the triggers spread
 * concurrent writers over: a deployment's read sums up to 8× these rows (1,440 for 90 days).
 * BENCH_OUTCOMES_CONNECTIONS (default 4) read each route for BENCH_OUTCOMES_SECONDS (default 10)
 * after a 2-second warm-up. Goal: outcomes p99 ≤ 200 ms, and at least a fifth of a bare read's
 * speed (bare p99 / outcomes p99 ≥ 0.2): what the counters buy, a read that does not grow with
 * the enrollments. The database (BENCH_DATABASE_URL, default waymark_bench_outcomes) is
 * recreated, seeded and vacuumed on every run.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { createDatabase, type Db } from '@waymark/core/db/database';
import { startApiProcess } from './lib/api-process';
import { autocannon, benchEnv, prepareBenchDatabase } from './lib/bench-server';
import { limitRow, ratioRow, writeBenchResults } from './lib/results';

const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://waymark:waymark@127.0.0.1:5432/waymark_bench_outcomes';
const SCALE = Number(process.env.BENCH_OUTCOMES_SCALE ?? 1);
const ENROLLMENTS = Math.round(1_000_000 * SCALE);
const EVENTS = Math.round(2_000_000 * SCALE);
const SECONDS = Number(process.env.BENCH_OUTCOMES_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_OUTCOMES_CONNECTIONS ?? 4);
const JOURNEY = 'first-project';
const VERSION = 'bench001';
const BATCH = 100_000;
/** 90 days of entries, in minutes: row g at minute (g × 7919) mod SPAN, spread over all of it at any scale */
const SPAN = 129_600;

async function inBatches(total: number, insert: (from: number, to: number) => Promise<unknown>): Promise<void> {
  for (let from = 1; from <= total; from += BATCH) await insert(from, Math.min(total, from + BATCH - 1));
}

/** Person g: held out when g % 5 = 0 (a fifth); converted when g % 8 = 1 (treatment) or g % 10 = 0 (holdout). */
async function seed(db: Db): Promise<void> {
  const started = Date.now();
  const took = () => `${((Date.now() - started) / 1000).toFixed(0)} s`;
  await inBatches(ENROLLMENTS, (from, to) =>
    sql`insert into journey_states (journey_id, user_id, user_email, current_node_id, status, workflow_id, context, journey_version, holdout, created_at, updated_at)
      select ${JOURNEY}, 'seed-' || g, 'seed' || g || '@example.com', 'sleep:2 days', 'waiting', 'seed-wf-' || g, '{}'::jsonb, ${VERSION}, g % 5 = 0,
        now() - ((g::bigint * 7919) % ${SPAN}) * interval '1 minute', now() - ((g::bigint * 7919) % ${SPAN}) * interval '1 minute'
      from generate_series(${from}::int, ${to}::int) g`.execute(db),
  );
  console.log(`seeded ${ENROLLMENTS} enrollments (${took()})`);
  await inBatches(ENROLLMENTS, (from, to) =>
    sql`insert into journey_logs (journey_state_id, from_node_id, to_node_id, action, detail, created_at)
      select s.id, 'start', 'first-project-tips', case when s.holdout then 'email_skipped' else 'email_sent' end,
        case when s.holdout then '{"templateKey":"first-project-tips","reason":"holdout"}'::jsonb else '{"templateKey":"first-project-tips"}'::jsonb end,
        s.created_at
      from journey_states s where s.workflow_id in (select 'seed-wf-' || g from generate_series(${from}::int, ${to}::int) g)`.execute(db),
  );
  console.log(`seeded ${ENROLLMENTS} first steps (${took()})`);
  await inBatches(ENROLLMENTS, (from, to) =>
    sql`update journey_states set converted_at = created_at + interval '3 days', status = 'exited'
      where workflow_id in (select 'seed-wf-' || g from generate_series(${from}::int, ${to}::int) g where (g % 5 <> 0 and g % 8 = 1) or g % 10 = 0)`.execute(
      db,
    ),
  );
  console.log(`seeded the conversions (${took()})`);
  await inBatches(EVENTS, (from, to) =>
    sql`insert into events (user_id, user_email, event, properties, source, occurred_at, created_at)
      select 'seed-' || (g % ${ENROLLMENTS} + 1), 'seed' || (g % ${ENROLLMENTS} + 1) || '@example.com',
        case when g <= ${ENROLLMENTS} then 'project.created' when g % 4 = 0 then 'project.published' else 'page.viewed' end,
        jsonb_build_object('projectId', 'p-' || (g % ${ENROLLMENTS} + 1)), 'api',
        now() - ((g::bigint * 7919) % ${SPAN}) * interval '1 minute', now() - ((g::bigint * 7919) % ${SPAN}) * interval '1 minute'
      from generate_series(${from}::int, ${to}::int) g`.execute(db),
  );
  console.log(`seeded ${EVENTS} events (${took()})`);
  // as autovacuum leaves tables that have settled (bench/segments.ts does the same)
  await sql`vacuum analyze`.execute(db);
  console.log(`vacuumed (${took()})`);
}

async function main(): Promise<void> {
  const adminKey = `bench-${randomUUID()}-${randomUUID()}`;
  await prepareBenchDatabase(databaseUrl);
  const db = createDatabase({ connectionString: databaseUrl, max: 2 });
  await seed(db);
  const counters = await sql<{ n: number }>`select count(*)::int as n from journey_outcome_counts`.execute(db);
  console.log(`${counters.rows[0]!.n} outcome counter rows for ${ENROLLMENTS} enrollments`);
  const api = await startApiProcess(
    benchEnv(databaseUrl, { TEMPORAL_TASK_QUEUE: `waymark-bench-outcomes-${process.pid}`, ADMIN_API_KEY: adminKey }),
    'outcomes.api',
  );
  /** p99 of `path` read by the bench's connections, after a warm-up */
  const measure = async (label: string, path: string) => {
    const run = (duration: number) =>
      autocannon({ url: `${api.url}${path}`, headers: { authorization: `Bearer ${adminKey}` }, connections: CONNECTIONS, duration });
    await run(2); // warm-up: plans, caches
    const result = await run(SECONDS);
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${label}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    console.log(`${label.padEnd(36)} ${result.requests.average.toFixed(0).padStart(5)} req/s  p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms`);
    return result.latency.p99;
  };
  try {
    const outcomes = await measure('outcomes (all versions)', `/v1/admin/journeys/${JOURNEY}/outcomes`);
    const bare = await measure('bare indexed read', `/bench/baseline/read/seed-wf-${Math.ceil(ENROLLMENTS / 2)}`);
    const sizes = `${ENROLLMENTS} enrollments, ${EVENTS} events, ${CONNECTIONS} connection(s)`;
    writeBenchResults('outcomes', [
      limitRow(`GET /v1/admin/journeys/{id}/outcomes p99 (${sizes})`, 'ms', outcomes, 200),
      // latency, so the ratio is bare / outcomes: 1 would be as fast as one indexed SELECT
      ratioRow(`bare indexed read p99 / outcomes p99 (${sizes})`, 'ms', bare, outcomes, 0.2),
    ]);
  } finally {
    await api.stop();
    await db.destroy();
  }
}

main().catch((error: unknown) => {
  console.error('bench outcomes failed:', error);
  process.exit(1);
});
