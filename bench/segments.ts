/**
 * npm run bench -- segments — `POST /v1/admin/segments/preview` (count and sample of a condition
 * tree, never cached) of a segment with one property leaf and one event leaf, over 200,000 contacts
 * and 2,000,000 events (bench/lib/seed-large.ts; sizes via BENCH_CONTACTS / BENCH_SEGMENT_EVENTS).
 * The segment: `plan = pro` (a third of the contacts) and `plan.viewed` within 30 days (a quarter
 * of the events, a third of them in the window). BENCH_SEGMENT_CONNECTIONS (default 1: a person
 * editing a segment in the studio) read it for BENCH_SEGMENT_SECONDS (default 10) after a 2-second
 * warm-up; goal p99 ≤ 300 ms. Then the same with the events index of migration 0131 swapped back
 * for the one it replaced (its `down`), so the second row is the index's own effect in the same run.
 * The database (BENCH_DATABASE_URL, default waymark_bench_segments) is recreated and seeded on every
 * run, then vacuumed, as autovacuum leaves a table that has settled.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { createDatabase } from '@waymark/core/db/database';
import { startApiProcess } from './lib/api-process';
import { autocannon, benchEnv, prepareBenchDatabase, undoMigrations } from './lib/bench-server';
import { limitRow, ratioRow, writeBenchResults } from './lib/results';
import { seedLarge } from './lib/seed-large';

const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://waymark:waymark@127.0.0.1:5432/waymark_bench_segments';
const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 200_000);
const EVENTS = Number(process.env.BENCH_SEGMENT_EVENTS ?? 2_000_000);
const SECONDS = Number(process.env.BENCH_SEGMENT_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_SEGMENT_CONNECTIONS ?? 1);
const CONDITIONS = {
  all: [
    { type: 'property', property: 'plan', operator: 'eq', value: 'pro' },
    { type: 'event', event: 'plan.viewed', within: '30d' },
  ],
};

async function main(): Promise<void> {
  const adminKey = `bench-${randomUUID()}-${randomUUID()}`;
  await prepareBenchDatabase(databaseUrl);
  const db = createDatabase({ connectionString: databaseUrl, max: 2 });
  await seedLarge(db, { events: EVENTS, contacts: CONTACTS, emailSends: 0, auditLogs: 0 });
  await sql`vacuum analyze`.execute(db);
  const api = await startApiProcess(
    benchEnv(databaseUrl, { TEMPORAL_TASK_QUEUE: `waymark-bench-segments-${process.pid}`, ADMIN_API_KEY: adminKey }),
    'segments.api',
  );
  const preview = async (label: string) => {
    const run = (duration: number) =>
      autocannon({
        url: `${api.url}/v1/admin/segments/preview`,
        method: 'POST',
        headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ conditions: CONDITIONS }),
        connections: CONNECTIONS,
        duration,
      });
    await run(2); // warm-up: plans, caches
    const result = await run(SECONDS);
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${label}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    console.log(`${label.padEnd(44)} ${result.requests.average.toFixed(1).padStart(6)} req/s  p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms`);
    return result.latency.p99;
  };
  const withIndex = await preview('preview (migration 0131 index)');
  await undoMigrations(db, ['0131_events_segment_index']);
  await sql`analyze events`.execute(db);
  const without = await preview('preview (events (event, occurred_at) only)');
  await api.stop();
  await db.destroy();
  const sizes = `${CONTACTS} contacts, ${EVENTS} events, ${CONNECTIONS} connection(s)`;
  writeBenchResults('segments', [
    limitRow(`segment preview (property + event leaf) p99 (${sizes})`, 'ms', withIndex, 300),
    // latency, so the ratio is before / after: above 1 means the index made the preview faster
    ratioRow(`segment preview p99 without the 0131 index / with it (${sizes})`, 'ms', without, withIndex, 1),
  ]);
}

main().catch((error: unknown) => {
  console.error('bench segments failed:', error);
  process.exit(1);
});
