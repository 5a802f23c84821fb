/**
 * npm run bench -- admin-lists — the admin lists (events, emails, contacts, audit logs; first page,
 * default size; the default order, then each documented filter alone) with 1,000,000 events and 200,000 contacts seeded (bench/lib/seed-large.ts; sizes
 * via BENCH_EVENTS / BENCH_CONTACTS), and a journey's detail (with its per-status counts) and its
 * waiting states with 100,000 states stored for it (BENCH_JOURNEY_STATES). Each route is read by
 * BENCH_LIST_CONNECTIONS (default 4) connections for BENCH_LIST_SECONDS (default 5) after a
 * 2-second warm-up; goal p99 ≤ 50 ms, one row per route in bench/results/admin-lists.json. The
 * database (BENCH_DATABASE_URL, default waymark_bench_lists) is recreated, seeded and vacuumed on every run.
 * Last, what the counter triggers those totals read cost a write: a single-row INSERT (0070) and a
 * send's status change (0140) (lib/counter-trigger-cost.ts).
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { createDatabase } from '@waymark/core/db/database';
import { startApiProcess } from './lib/api-process';
import { autocannon, benchEnv, prepareBenchDatabase } from './lib/bench-server';
import { limitRow, writeBenchResults, type BenchRow } from './lib/results';
import { seedLarge } from './lib/seed-large';
import { counterTriggerCost, statusCounterCost } from './lib/counter-trigger-cost';

const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://waymark:waymark@127.0.0.1:5432/waymark_bench_lists';
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 200_000);
const JOURNEY_STATES = Number(process.env.BENCH_JOURNEY_STATES ?? 100_000);
// a journey defined in journeys/: the detail route answers 404 for an unknown id
const JOURNEY = 'payment-recovery';
const DAY = 86_400_000;
/** An ISO instant `days` before the bench started (the seed spreads rows over the last 90 days). */
const daysAgo = (days: number) => new Date(Date.now() - days * DAY).toISOString();
// a week 30 to 37 days back: a bounded range (from and to) inside the seeded span
const WEEK = `from=${daysAgo(37)}&to=${daysAgo(30)}`;
/**
 * Each list's default page, then each filter its OpenAPI description documents, one at a time, with
 * a value that matches what the seed holds: the broad ones (every send is `welcome` and `sent`,
 * every audit row `legacy`/`update`/`contact`) count 100,000 rows for their total; a search or an
 * address matches a handful. BENCH_ONLY (substrings, comma-separated) keeps the routes that contain one.
 */
const ROUTES = [
  '/v1/admin/events',
  '/v1/admin/emails',
  '/v1/admin/emails?toEmail=seed4242@example.com',
  '/v1/admin/emails?templateKey=welcome',
  '/v1/admin/emails?status=sent',
  `/v1/admin/emails?${WEEK}`,
  '/v1/admin/contacts',
  '/v1/admin/contacts?search=seed4242',
  '/v1/admin/audit-logs',
  '/v1/admin/audit-logs?actor=legacy',
  '/v1/admin/audit-logs?resource=contact',
  '/v1/admin/audit-logs?action=update',
  `/v1/admin/audit-logs?${WEEK}`,
  `/v1/admin/journeys/${JOURNEY}`,
  `/v1/admin/journeys/${JOURNEY}/states?status=waiting&limit=50`,
].filter((path) => (process.env.BENCH_ONLY ?? '').split(',').some((only) => path.includes(only)));
/** The row's name: the path, with the bench's dates shown as the window they stand for. */
const rowPath = (path: string) => path.replace(WEEK, 'from=<37 days ago>&to=<30 days ago>');

async function main(): Promise<void> {
  const adminKey = `bench-${randomUUID()}-${randomUUID()}`;
  await prepareBenchDatabase(databaseUrl);
  const db = createDatabase({ connectionString: databaseUrl, max: 4 });
  await seedLarge(db, {
    events: EVENTS,
    contacts: CONTACTS,
    emailSends: Math.round(EVENTS / 10),
    auditLogs: Math.round(EVENTS / 10),
    journeyStates: { count: JOURNEY_STATES, journeyIds: [JOURNEY] },
  });
  // as autovacuum leaves a table that has settled (the visibility map set), so index-only scans
  // read no heap pages (bench/segments.ts does the same)
  await sql`vacuum analyze`.execute(db);
  // the api in a process of its own, so autocannon does not share its event loop
  const api = await startApiProcess(
    benchEnv(databaseUrl, { TEMPORAL_TASK_QUEUE: `waymark-bench-lists-${process.pid}`, ADMIN_API_KEY: adminKey }),
    'admin-lists.api',
  );
  const url = api.url;
  const rows: BenchRow[] = [];
  const seconds = Number(process.env.BENCH_LIST_SECONDS ?? 5);
  /** p99 of `path` read by the bench's connections, after a warm-up */
  const measure = async (path: string) => {
    const run = (duration: number) =>
      autocannon({
        url: `${url}${path}`,
        headers: { authorization: `Bearer ${adminKey}` },
        connections: Number(process.env.BENCH_LIST_CONNECTIONS ?? 4),
        duration,
      });
    await run(2); // warm-up: plans, caches
    const result = await run(seconds);
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${path}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    console.log(
      `${rowPath(path).padEnd(60)} ${result.requests.average.toFixed(0).padStart(5)} req/s  p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms`,
    );
    return result.latency.p99;
  };
  for (const path of ROUTES) {
    const sizes = path.startsWith('/v1/admin/journeys') ? `${JOURNEY_STATES} journey states` : `${EVENTS} events, ${CONTACTS} contacts`;
    rows.push(limitRow(`admin ${rowPath(path)} p99 (${sizes})`, 'ms', await measure(path), 50));
  }
  // The contacts list sorts the rows of its newest minutes (migration 0130): the worst case is many
  // contacts seen in one minute and nobody after them, as right after a bulk import
  const imported = Math.round(CONTACTS / 7);
  await sql`update contacts set last_seen_at = now() where id in (select id from contacts order by id limit ${imported})`.execute(db);
  await sql`analyze contacts`.execute(db);
  const afterImport = await measure('/v1/admin/contacts');
  rows.push(
    limitRow(
      `admin /v1/admin/contacts p99 right after ${imported} contacts were seen in one minute (${EVENTS} events, ${CONTACTS} contacts)`,
      'ms',
      afterImport,
      50,
    ),
  );
  // after the reads: they toggle the counter triggers
  await api.stop();
  rows.push(await counterTriggerCost(db, { connections: 4, rounds: 4, roundMs: 2000 }));
  rows.push(await statusCounterCost(db, { connections: 4, rounds: 4, roundMs: 2000 }));
  await db.destroy();
  writeBenchResults('admin-lists', rows);
}

main().catch((error: unknown) => {
  console.error('bench admin-lists failed:', error);
  process.exit(1);
});
