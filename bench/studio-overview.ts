/**
 * npm run bench -- studio-overview — the studio's overview page (/studio) with 100,000 events in
 * the database, all inside the 7 days the page shows (the worst case for its window), plus email
 * sends (1 per 5 events), journey states (1 per 10, spread over the deployment's journeys and the
 * five statuses) and contacts (1 per 10). One page load is what the browser does: the session
 * (GET /api/auth/get-session, which carries the organization and abilities), then the page's four admin calls
 * at once (metrics over 7 days, the activity series, journeys with their counts, alert history),
 * all with the session cookie. BENCH_OVERVIEW_LOADS (default 40) loads one after another after 5
 * warm-up loads; rows: page p50 and p99, goal ≤ 1000 ms, and each call's p99 for diagnosis.
 * Sizes: BENCH_EVENTS (default 100000). The database (BENCH_DATABASE_URL, default
 * waymark_bench_overview) is recreated and seeded on every run.
 */
import { randomUUID } from 'node:crypto';
import { createAdmin } from '@waymark/core/organizations/admin-accounts';
import { startBenchServer } from './lib/bench-server';
import { limitRow, writeBenchResults, type BenchRow } from './lib/results';
import { seedLarge } from './lib/seed-large';

const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://waymark:waymark@127.0.0.1:5432/waymark_bench_overview';
const EVENTS = Number(process.env.BENCH_EVENTS ?? 100_000);
const LOADS = Number(process.env.BENCH_OVERVIEW_LOADS ?? 40);
const WARM_UP = 5;
const GOAL_MS = 1000;
const WEEK_MINUTES = 7 * 24 * 60;

/** The four calls apps/studio/src/routes/overview.tsx makes once the session is known. */
function overviewCalls(now: Date): Record<string, string> {
  const from = new Date(now.getTime() - 7 * 86_400_000);
  return {
    metrics: `/v1/admin/metrics?${new URLSearchParams({ from: from.toISOString(), to: now.toISOString() }).toString()}`,
    activity: '/v1/admin/metrics/activity?hours=24&days=7',
    journeys: '/v1/admin/journeys?limit=100',
    alerts: '/v1/admin/alerts/history?limit=20',
  };
}

const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

async function main(): Promise<void> {
  const { url, app, deps, config } = await startBenchServer(databaseUrl, { TEMPORAL_TASK_QUEUE: `waymark-bench-overview-${process.pid}` });
  await seedLarge(deps.db, {
    events: EVENTS,
    contacts: Math.round(EVENTS / 10),
    emailSends: Math.round(EVENTS / 5),
    auditLogs: 0,
    journeyStates: { count: Math.round(EVENTS / 10), journeyIds: deps.journeys.all().map((journey) => journey.id) },
    spanMinutes: WEEK_MINUTES,
  });

  // signed in as the studio is: a session cookie, sent with the api's own origin
  const admin = { email: `bench-${randomUUID().slice(0, 8)}@waymark-bench.example`, password: `pw-${randomUUID()}` };
  await createAdmin(deps.db, admin);
  const signIn = await fetch(`${url}/api/auth/sign-in/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: config.authUrl },
    body: JSON.stringify(admin),
  });
  const cookie = /waymark_session=[^;]*/.exec(signIn.headers.getSetCookie().join('\n'))?.[0];
  if (!signIn.ok || cookie === undefined) throw new Error(`sign-in failed: ${signIn.status} ${await signIn.text()}`);

  const get = async (path: string): Promise<number> => {
    const started = performance.now();
    const response = await fetch(`${url}${path}`, { headers: { cookie } });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
    return performance.now() - started;
  };
  const pages: number[] = [];
  const perCall: Record<string, number[]> = {};
  for (let load = 0; load < WARM_UP + LOADS; load += 1) {
    const started = performance.now();
    await get('/api/auth/get-session');
    const calls = Object.entries(overviewCalls(new Date()));
    const times = await Promise.all(calls.map(([, path]) => get(path)));
    if (load < WARM_UP) continue;
    pages.push(performance.now() - started);
    calls.forEach(([name], i) => (perCall[name] ??= []).push(times[i]!));
  }
  await app.close();
  await deps.close();

  const label = `${EVENTS} events in 7 days`;
  const rows: BenchRow[] = [
    limitRow(`studio overview page p50 (${label})`, 'ms', percentile(pages, 50), GOAL_MS),
    limitRow(`studio overview page p99 (${label})`, 'ms', percentile(pages, 99), GOAL_MS),
    ...Object.entries(perCall).map(([name, times]) => limitRow(`studio overview call ${name} p99 (${label})`, 'ms', percentile(times, 99), GOAL_MS)),
  ];
  for (const [name, times] of Object.entries(perCall)) {
    console.log(`${name.padEnd(9)} p50 ${percentile(times, 50).toFixed(1)} ms  p99 ${percentile(times, 99).toFixed(1)} ms`);
  }
  writeBenchResults('studio-overview', rows);
}

main().catch((error: unknown) => {
  console.error('bench studio-overview failed:', error);
  process.exit(1);
});
