/**
 * npm run bench:tracking — open-pixel and click-redirect throughput and latency against bare
 * endpoints in the same server and the same run:
 *   pixel:  GET /v1/t/o/<send id>  vs  GET /v1/bench/baseline/pixel/<id> (same GIF and headers, no I/O)
 *   click:  GET /v1/t/c/<link id>  vs  GET /v1/bench/baseline/click/<id> (same 302, no I/O)
 * The baselines are mounted only with BENCH_BASELINE (never when NODE_ENV=production).
 * Ids are taken round-robin from BENCH_SENDS sends seeded fresh for each round (default 2000): the
 * pixel run starts with first opens (a write + an `email.opened` push each), then repeat opens
 * (as in real mail: clients and image proxies re-fetch pixels), while every click writes (click row, counter, first-click timestamp) and pushes `email.link_clicked`
 * through the ingest pipeline, fire-and-forget.
 * BENCH_ROUNDS (default 2) alternating baseline/tracked pairs; the ratios use the summed req/s.
 * The last line is exactly `tracking ratio pixel=<x.xx> click=<y.yy>` (req/s tracked ÷ baseline).
 */
import { sql } from 'kysely';
import { autocannon, CONNECTIONS, DURATION, startBenchServer, type AutocannonResult } from './bench-server';

const SENDS = Number(process.env.BENCH_SENDS ?? 2000);
const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://waymark:waymark@127.0.0.1:5432/waymark_bench_tracking';

async function main(): Promise<void> {
  const { url, app, deps, config } = await startBenchServer(databaseUrl, {
    TEMPORAL_TASK_QUEUE: `waymark-bench-tracking-${process.pid}`,
    API_PUBLIC_URL: 'http://bench.waymark.local',
    ANALYTICS_API_KEY: '',
    ANALYTICS_HOST: '',
  });

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
      const sends = await deps.db
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
      const rows = await deps.db
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

  const scenario = async (label: string, prefix: string, ids: string[]) => {
    // start each run quiet: the previous run's fire-and-forget pushes must not bill this one
    await deps.trackingEvents.drain();
    let n = 0;
    const options = () => ({
      url,
      method: 'GET',
      connections: CONNECTIONS,
      requests: [{ setupRequest: (request: object) => ({ ...request, path: `${prefix}${ids[n++ % ids.length]}` }) }],
    });
    await autocannon({ ...options(), duration: 2 }); // warm-up: pools, JIT
    const result = await autocannon({ ...options(), duration: DURATION });
    const codes = Object.entries(result.statusCodeStats ?? {})
      .map(([code, stat]) => `${code}×${stat.count}`)
      .join(' ');
    console.log(`${label.padEnd(22)} ${result.requests.average.toFixed(0).padStart(6)} req/s  p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms  errors ${result.errors}  [${codes}]`);
    return result;
  };

  // ROUNDS alternating baseline/tracked pairs, summed: the machine is shared, so load that
  // comes and goes hits both sides of a ratio alike
  const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
  const totals = { pixelBase: 0, pixel: 0, clickBase: 0, click: 0 };
  let pixel: AutocannonResult | undefined;
  let pixelBase: AutocannonResult | undefined;
  let click: AutocannonResult | undefined;
  let clickBase: AutocannonResult | undefined;
  for (let round = 1; round <= ROUNDS; round += 1) {
    const fresh = await seed(SENDS);
    pixelBase = await scenario(`pixel baseline #${round}`, '/v1/bench/baseline/pixel/', fresh.sendIds);
    pixel = await scenario(`pixel /v1/t/o #${round}`, '/v1/t/o/', fresh.sendIds);
    clickBase = await scenario(`click baseline #${round}`, '/v1/bench/baseline/click/', fresh.linkIds);
    click = await scenario(`click /v1/t/c #${round}`, '/v1/t/c/', fresh.linkIds);
    totals.pixelBase += pixelBase.requests.average;
    totals.pixel += pixel.requests.average;
    totals.clickBase += clickBase.requests.average;
    totals.click += click.requests.average;
  }

  // the fire-and-forget pushes (tracking events through the ingest pipeline) finish after the
  // requests; report how long they lagged and that none were lost. autocannon stops at its
  // deadline without waiting for the requests in flight: close the server first (it lets them
  // finish, so their clicks are written and their events queued), then drain.
  const drainStart = Date.now();
  await app.close();
  await deps.trackingEvents.drain();
  const drainSeconds = (Date.now() - drainStart) / 1000;
  const [events, parked, clicks] = await Promise.all([
    deps.db.selectFrom('events').select((eb) => eb.fn.countAll<number>().as('n')).where('userId', 'like', `bench-${run}-%`).executeTakeFirstOrThrow(),
    deps.db.selectFrom('dlqEntries').select((eb) => eb.fn.countAll<number>().as('n')).where('source', '=', 'event').where(sql<string>`payload ->> 'userId'`, 'like', `bench-${run}-%`).executeTakeFirstOrThrow(),
    deps.db.selectFrom('linkClicks').innerJoin('trackedLinks', 'trackedLinks.id', 'linkClicks.trackedLinkId').select((eb) => eb.fn.countAll<number>().as('n')).where('trackedLinks.id', 'in', linkIds).executeTakeFirstOrThrow(),
  ]);
  console.log(`last round p99: pixel ${pixel?.latency.p99} ms vs ${pixelBase?.latency.p99} ms; click ${click?.latency.p99} ms vs ${clickBase?.latency.p99} ms`);
  console.log(`clicks recorded ${clicks.n}; tracking events stored ${events.n}, parked in DLQ ${parked.n}; pipeline backlog drained ${drainSeconds.toFixed(1)} s after the last request`);
  await deps.close();
  console.log(`tracking ratio pixel=${(totals.pixel / totals.pixelBase).toFixed(2)} click=${(totals.click / totals.clickBase).toFixed(2)}`);
}

main().catch((error: unknown) => {
  console.error('bench:tracking failed:', error);
  process.exit(1);
});
