/**
 * npm run bench -- admin-lists — the admin lists (events, emails, contacts, audit logs; first page,
 * default size) with 1,000,000 events and 200,000 contacts seeded (bench/lib/seed-large.ts; sizes
 * via BENCH_EVENTS / BENCH_CONTACTS). Each list is read by BENCH_LIST_CONNECTIONS (default 4)
 * connections for BENCH_LIST_SECONDS (default 5); goal p99 ≤ 50 ms, one row per list in
 * bench/results/admin-lists.json. The database (BENCH_DATABASE_URL, default waymark_bench_lists)
 * is recreated and seeded on every run.
 */
import { randomUUID } from 'node:crypto';
import { autocannon, startBenchServer } from './lib/bench-server';
import { limitRow, writeBenchResults, type BenchRow } from './lib/results';
import { seedLarge } from './lib/seed-large';

const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://waymark:waymark@127.0.0.1:5432/waymark_bench_lists';
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 200_000);
const LISTS = ['/v1/admin/events', '/v1/admin/emails', '/v1/admin/contacts', '/v1/admin/audit-logs'];

async function main(): Promise<void> {
  const adminKey = `bench-${randomUUID()}-${randomUUID()}`;
  const { url, app, deps } = await startBenchServer(databaseUrl, { TEMPORAL_TASK_QUEUE: `waymark-bench-lists-${process.pid}`, ADMIN_API_KEY: adminKey });
  await seedLarge(deps.db, { events: EVENTS, contacts: CONTACTS, emailSends: Math.round(EVENTS / 10), auditLogs: Math.round(EVENTS / 10) });
  const rows: BenchRow[] = [];
  const seconds = Number(process.env.BENCH_LIST_SECONDS ?? 5);
  for (const path of LISTS) {
    const run = () =>
      autocannon({
        url: `${url}${path}`,
        headers: { authorization: `Bearer ${adminKey}` },
        connections: Number(process.env.BENCH_LIST_CONNECTIONS ?? 4),
        duration: seconds,
      });
    await run(); // warm-up: plans, caches
    const result = await run();
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${path}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    console.log(`${path.padEnd(22)} ${result.requests.average.toFixed(0).padStart(5)} req/s  p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms`);
    rows.push(limitRow(`admin list ${path} p99 (${EVENTS} events, ${CONTACTS} contacts)`, 'ms', result.latency.p99, 50));
  }
  await app.close();
  await deps.close();
  writeBenchResults('admin-lists', rows);
}

main().catch((error: unknown) => {
  console.error('bench admin-lists failed:', error);
  process.exit(1);
});
