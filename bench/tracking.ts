/**
 * npm run bench:tracking — open-pixel and click-redirect throughput and latency against bare
 * endpoints in the same server and the same run:
 *   pixel:  GET /v1/t/o/<send id>  vs  GET /bench/baseline/pixel/<id> (same GIF and headers, no I/O)
 *   click:  GET /v1/t/c/<link id>  vs  GET /bench/baseline/click/<id> (same 302, no I/O)
 * The baselines exist only in the bench server (bench/lib/baseline-routes.ts).
 * Ids are taken round-robin from BENCH_SENDS sends seeded fresh for each round (default 2000): the
 * pixel run starts with first opens (a write + an `email.opened` push each), then repeat opens
 * (as in real mail: clients and image proxies re-fetch pixels); every click writes (click row,
 * counter, first-click timestamp) and pushes `email.link_clicked` through the ingest pipeline,
 * fire-and-forget.
 * The api runs in a child process (bench/lib/api-process.ts), so autocannon has this process's
 * event loop to itself and can drive the api to its limit.
 * One 2 s warm-up of each endpoint on sends of its own, then BENCH_ROUNDS (default 6) rounds of
 * short (BENCH_TRACKING_SECONDS, default 3 s) alternating baseline/tracked runs at max throughput
 * (closed model); the ratios use the summed req/s. Then one open-model pass: each endpoint offered
 * goal × the bare endpoint's rate (autocannon overallRate), which the tracked one must serve.
 * Rows (req/s tracked ÷ baseline, goals pixel ≥ 0.7, click ≥ 0.5; open model served ÷ offered
 * ≥ 0.95) go to bench/results/tracking.json.
 */
import { sql } from 'kysely';
import { loadConfig } from '@waymark/core/config/config';
import { createDatabase } from '@waymark/core/db/database';
import { startApiProcess } from './lib/api-process';
import { autocannon, benchEnv, prepareBenchDatabase, type AutocannonResult } from './lib/bench-server';
import { ratioRow, writeBenchResults } from './lib/results';

const SENDS = Number(process.env.BENCH_SENDS ?? 2000);
// Throughput is compared with both sides driven to their limit. The bare endpoints top out at 10
// connections (one event loop, busy); the tracked ones spend most of a request waiting for their
// group-committed write, so at 10 connections they are idle half the time and the ratio mostly
// measures the machine's wake-up latency (it swung 0.21–0.55 between pairs). bench/README.md has
// the ratio against the number of connections.
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://waymark:waymark@127.0.0.1:5432/waymark_bench_tracking';

async function main(): Promise<void> {
  const env = benchEnv(databaseUrl, {
    TEMPORAL_TASK_QUEUE: `waymark-bench-tracking-${process.pid}`,
    API_PUBLIC_URL: 'http://bench.waymark.local',
    ANALYTICS_API_KEY: '',
    ANALYTICS_HOST: '',
  });
  await prepareBenchDatabase(databaseUrl);
  const config = loadConfig(env);
  const db = createDatabase({ connectionString: databaseUrl, max: 2 });
  // the api in a child process: autocannon and the api on one event loop capped both at half a core
  const api = await startApiProcess(env, 'tracking.api');
  const { url } = api;

  // seed: sent emails with one tracked link each (fresh ones per round, so every round pays
  // for its first opens)
  const run = `${Date.now()}`;
  const linkIds: string[] = [];
  let seeded = 0;
  const seed = async (count: number) => {
    const sendIds: string[] = [];
    const links: string[] = [];
    for (let offset = 0; offset < count; offset += 500) {
      const batch = Math.min(500, count - offset);
      const sends = await db
        .insertInto('emailSends')
        .values(
          Array.from({ length: batch }, () => {
            const n = seeded++;
            return {
              templateKey: 'welcome',
              toEmail: `bench-${run}-${n}@bench.local`,
              fromEmail: config.email.from,
              userId: `bench-${run}-${n}`,
              status: 'sent' as const,
              sentAt: new Date(),
              idempotencyKey: `bench-${run}-${n}`,
            };
          }),
        )
        .returning('id')
        .execute();
      const rows = await db
        .insertInto('trackedLinks')
        .values(sends.map((send) => ({ emailSendId: send.id, originalUrl: 'https://app.example.com/' })))
        .returning('id')
        .execute();
      sendIds.push(...sends.map((send) => send.id));
      links.push(...rows.map((row) => row.id));
    }
    linkIds.push(...links);
    return { sendIds, linkIds: links };
  };

  // closed model (no rate: each connection sends its next request when the last one answered) or
  // open model (`rate`: requests/s offered across all connections, whatever the answers take)
  const measure = async (prefix: string, ids: readonly string[], duration: number, rate?: number) => {
    // start each run quiet: the previous run's fire-and-forget pushes must not bill this one
    await api.drain();
    let n = 0;
    return autocannon({
      url,
      method: 'GET',
      connections: CONNECTIONS,
      duration,
      ...(rate === undefined ? {} : { overallRate: Math.max(1, Math.round(rate)) }),
      requests: [{ setupRequest: (request: object) => ({ ...request, path: `${prefix}${ids[n++ % ids.length]}` }) }],
    });
  };
  const line = (label: string, result: AutocannonResult) => {
    const codes = Object.entries(result.statusCodeStats ?? {})
      .map(([code, stat]) => `${code}×${stat.count}`)
      .join(' ');
    return `${label} ${result.requests.average.toFixed(0).padStart(5)} req/s p99 ${String(result.latency.p99).padStart(3)} ms [${codes}]`;
  };

  // warm-up once (pools, JIT, prepared statements) on sends of its own, so that every measured
  // round starts with first opens and first clicks
  const warm = await seed(SENDS);
  for (const [prefix, ids] of [
    ['/bench/baseline/pixel/', warm.sendIds],
    ['/v1/t/o/', warm.sendIds],
    ['/bench/baseline/click/', warm.linkIds],
    ['/v1/t/c/', warm.linkIds],
  ] as const) {
    await measure(prefix, ids, 2);
  }

  // ROUNDS short alternating baseline/tracked pairs, summed: the machine is shared and its speed
  // drifts over seconds, so many short pairs expose both sides of a ratio to the same drift
  const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
  const SECONDS = Number(process.env.BENCH_TRACKING_SECONDS ?? 3);
  const totals = { pixelBase: 0, pixel: 0, clickBase: 0, click: 0 };
  const pairs = { pixel: [] as number[], click: [] as number[] };
  let last: Record<'pixelBase' | 'pixel' | 'clickBase' | 'click', AutocannonResult> | undefined;
  for (let round = 1; round <= ROUNDS; round += 1) {
    const fresh = await seed(SENDS);
    const pixelBase = await measure('/bench/baseline/pixel/', fresh.sendIds, SECONDS);
    const pixel = await measure('/v1/t/o/', fresh.sendIds, SECONDS);
    const clickBase = await measure('/bench/baseline/click/', fresh.linkIds, SECONDS);
    const click = await measure('/v1/t/c/', fresh.linkIds, SECONDS);
    totals.pixelBase += pixelBase.requests.average;
    totals.pixel += pixel.requests.average;
    totals.clickBase += clickBase.requests.average;
    totals.click += click.requests.average;
    pairs.pixel.push(pixel.requests.average / pixelBase.requests.average);
    pairs.click.push(click.requests.average / clickBase.requests.average);
    console.log(
      `round ${round}/${ROUNDS}  ${line('pixel base', pixelBase)}  ${line('tracked', pixel)}  |  ${line('click base', clickBase)}  ${line('tracked', click)}`,
    );
    last = { pixelBase, pixel, clickBase, click };
  }
  const spread = (ratios: number[]) => `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`;
  console.log(
    `mean req/s: pixel ${(totals.pixelBase / ROUNDS).toFixed(0)} base / ${(totals.pixel / ROUNDS).toFixed(0)} tracked (pairs ${spread(pairs.pixel)}); ` +
      `click ${(totals.clickBase / ROUNDS).toFixed(0)} base / ${(totals.click / ROUNDS).toFixed(0)} tracked (pairs ${spread(pairs.click)})`,
  );

  // open model: offer each tracked endpoint the arrival rate its goal implies (goal × the bare
  // endpoint's closed-model rate) on fresh sends, and check it keeps up; the bare endpoint gets
  // the same rate, for the latency comparison
  const offered = { pixel: 0.7 * (totals.pixelBase / ROUNDS), click: 0.5 * (totals.clickBase / ROUNDS) };
  const open = await seed(SENDS);
  const fixed = {
    pixelBase: await measure('/bench/baseline/pixel/', open.sendIds, SECONDS, offered.pixel),
    pixel: await measure('/v1/t/o/', open.sendIds, SECONDS, offered.pixel),
    clickBase: await measure('/bench/baseline/click/', open.linkIds, SECONDS, offered.click),
    click: await measure('/v1/t/c/', open.linkIds, SECONDS, offered.click),
  };
  console.log(
    `open model: pixel offered ${offered.pixel.toFixed(0)}/s  ${line('base', fixed.pixelBase)} p50 ${fixed.pixelBase.latency.p50} ms  ${line('tracked', fixed.pixel)} p50 ${fixed.pixel.latency.p50} ms`,
  );
  console.log(
    `open model: click offered ${offered.click.toFixed(0)}/s  ${line('base', fixed.clickBase)} p50 ${fixed.clickBase.latency.p50} ms  ${line('tracked', fixed.click)} p50 ${fixed.click.latency.p50} ms`,
  );

  // the fire-and-forget pushes (tracking events through the ingest pipeline) finish after the
  // requests; report how long they lagged and that none were lost. autocannon stops at its
  // deadline without waiting for the requests in flight: close the server first (it lets them
  // finish, so their clicks are written and their events queued), then drain.
  const drainStart = Date.now();
  await api.stop();
  const drainSeconds = (Date.now() - drainStart) / 1000;
  const [events, parked, clicks] = await Promise.all([
    db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('userId', 'like', `bench-${run}-%`)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('dlqEntries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('source', '=', 'event')
      .where(sql<string>`payload ->> 'userId'`, 'like', `bench-${run}-%`)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('linkClicks')
      .innerJoin('trackedLinks', 'trackedLinks.id', 'linkClicks.trackedLinkId')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('trackedLinks.id', 'in', linkIds)
      .executeTakeFirstOrThrow(),
  ]);
  console.log(
    `last round p99: pixel ${last?.pixel.latency.p99} ms vs ${last?.pixelBase.latency.p99} ms; click ${last?.click.latency.p99} ms vs ${last?.clickBase.latency.p99} ms`,
  );
  console.log(
    `clicks recorded ${clicks.n}; tracking events stored ${events.n}, parked in DLQ ${parked.n}; pipeline backlog drained ${drainSeconds.toFixed(1)} s after the last request`,
  );
  await db.destroy();
  writeBenchResults('tracking', [
    ratioRow('tracking: open pixel vs bare GIF', 'req/s', totals.pixel / ROUNDS, totals.pixelBase / ROUNDS, 0.7),
    ratioRow('tracking: click redirect vs bare 302', 'req/s', totals.click / ROUNDS, totals.clickBase / ROUNDS, 0.5),
    // achieved ÷ offered: the tracked endpoint keeps up with the arrival rate its goal implies
    ratioRow('tracking (open model): pixel served at 0.7× bare capacity', 'req/s', fixed.pixel.requests.average, offered.pixel, 0.95),
    ratioRow('tracking (open model): click served at 0.5× bare capacity', 'req/s', fixed.click.requests.average, offered.click, 0.95),
  ]);
}

main().catch((error: unknown) => {
  console.error('bench:tracking failed:', error);
  process.exit(1);
});
