/**
 * npm run bench:tracking — open-pixel and click-redirect throughput and latency against bare
 * endpoints in the same server and the same run:
 *   pixel:  GET /v1/t/o/<send id>  vs  GET /v1/bench/baseline/pixel/<id> (same GIF and headers, no I/O)
 *   click:  GET /v1/t/c/<link id>  vs  GET /v1/bench/baseline/click/<id> (same 302, no I/O)
 * The baselines are mounted only with BENCH_BASELINE (never when NODE_ENV=production).
 * Ids are taken round-robin from BENCH_SENDS seeded sends (default 2000), so the pixel run is
 * mostly repeat opens after the first pass (as in real mail: clients re-fetch images) while
 * every click writes (click row, counter, first-click timestamp) and pushes `email.link_clicked`
 * through the ingest pipeline, fire-and-forget.
 * The last line is exactly `tracking ratio pixel=<x.xx> click=<y.yy>` (req/s tracked ÷ baseline).
 */
import { createRequire } from 'node:module';
import { sql } from 'kysely';
import { loadConfig } from '@waymark/core/config/config';
import { createDatabase } from '@waymark/core/db/database';
import { migrateToLatest } from '@waymark/core/db/migrator';
import { createLogger } from '@waymark/core/logging/logger';
import { buildApp } from '../apps/api/src/app';
import { createAppDeps } from '../apps/api/src/deps';

interface AutocannonResult {
  requests: { average: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  statusCodeStats?: Record<string, { count: number }>;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const SENDS = Number(process.env.BENCH_SENDS ?? 2000);
const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://waymark:waymark@127.0.0.1:5432/waymark_bench_tracking';

async function ensureDatabase(url: string): Promise<void> {
  const admin = new URL(url);
  const name = admin.pathname.slice(1);
  admin.pathname = '/postgres';
  const db = createDatabase({ connectionString: admin.toString(), max: 1 });
  const exists = await sql<{ n: number }>`select count(*)::int as n from pg_database where datname = ${name}`.execute(db);
  if (exists.rows[0]?.n === 0) await sql`create database ${sql.id(name)}`.execute(db);
  await db.destroy();
}

async function main(): Promise<void> {
  await ensureDatabase(databaseUrl);
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'development',
    LOG_LEVEL: 'warn',
    DATABASE_URL: databaseUrl,
    AUTH_SECRET: process.env.AUTH_SECRET ?? 'bench-auth-secret-at-least-32-characters',
    EMAIL_PROVIDER_API_KEY: process.env.EMAIL_PROVIDER_API_KEY ?? 'bench:bench',
    TEMPORAL_TASK_QUEUE: `waymark-bench-tracking-${process.pid}`,
    API_PUBLIC_URL: 'http://bench.waymark.local',
    RATE_LIMIT_MAX: '100000000',
    BENCH_BASELINE: 'true',
    ANALYTICS_API_KEY: '',
    ANALYTICS_HOST: '',
  });
  const migrateDb = createDatabase({ connectionString: databaseUrl, max: 1 });
  const migrated = await migrateToLatest(migrateDb);
  if (migrated.error !== undefined) throw migrated.error;
  await migrateDb.destroy();

  const logger = createLogger({ level: 'warn', name: 'bench', pretty: false });
  const deps = await createAppDeps(config, logger);
  const app = await buildApp({ deps, logger });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });

  // seed: sent emails with one tracked link each
  const run = `${Date.now()}`;
  const sendIds: string[] = [];
  const linkIds: string[] = [];
  for (let offset = 0; offset < SENDS; offset += 500) {
    const count = Math.min(500, SENDS - offset);
    const sends = await deps.db
      .insertInto('emailSends')
      .values(
        Array.from({ length: count }, (_unused, i) => ({
          templateKey: 'welcome',
          toEmail: `bench-${run}-${offset + i}@bench.local`,
          fromEmail: config.email.from,
          userId: `bench-${run}-${offset + i}`,
          status: 'sent' as const,
          sentAt: new Date(),
          idempotencyKey: `bench-${run}-${offset + i}`,
        })),
      )
      .returning('id')
      .execute();
    const links = await deps.db
      .insertInto('trackedLinks')
      .values(sends.map((send) => ({ emailSendId: send.id, originalUrl: 'https://app.example.com/' })))
      .returning('id')
      .execute();
    sendIds.push(...sends.map((send) => send.id));
    linkIds.push(...links.map((link) => link.id));
  }

  const scenario = async (label: string, prefix: string, ids: string[]) => {
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

  const pixelBase = await scenario('pixel baseline', '/v1/bench/baseline/pixel/', sendIds);
  const pixel = await scenario('pixel /v1/t/o', '/v1/t/o/', sendIds);
  const clickBase = await scenario('click baseline', '/v1/bench/baseline/click/', linkIds);
  const click = await scenario('click /v1/t/c', '/v1/t/c/', linkIds);

  // let fire-and-forget pushes drain before closing the pool
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const clicks = await deps.db.selectFrom('linkClicks').innerJoin('trackedLinks', 'trackedLinks.id', 'linkClicks.trackedLinkId').select((eb) => eb.fn.countAll<number>().as('n')).where('trackedLinks.id', 'in', linkIds.slice(0, 1)).executeTakeFirstOrThrow();
  console.log(`p99 pixel ${pixel.latency.p99} ms vs ${pixelBase.latency.p99} ms; click ${click.latency.p99} ms vs ${clickBase.latency.p99} ms; sample link clicks recorded: ${clicks.n}`);
  await app.close();
  await deps.close();
  console.log(`tracking ratio pixel=${(pixel.requests.average / pixelBase.requests.average).toFixed(2)} click=${(click.requests.average / clickBase.requests.average).toFixed(2)}`);
}

main().catch((error: unknown) => {
  console.error('bench:tracking failed:', error);
  process.exit(1);
});
