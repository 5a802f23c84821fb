/**
 * What every api benchmark shares: autocannon, the run settings, and an api built exactly as
 * server.ts builds it, plus the bare baseline routes (baseline-routes.ts), on a database of the bench's own.
 */
import { createRequire } from 'node:module';
import { loadConfig, type Config } from '@waymark/core/config/config';
import { createDatabase, type Db } from '@waymark/core/db/database';
import { recreateDatabase } from '@waymark/core/db/ensure-database';
import { migrateToLatest } from '@waymark/core/db/migrator';
import { migrations } from '../../migrations/index';
import { createLogger } from '@waymark/core/logging/logger';
import { startTracing } from '@waymark/core/logging/tracing';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../apps/api/src/app';
import { createAppDeps, type AppDeps } from '../../apps/api/src/deps';
import { registerBaselineRoutes } from './baseline-routes';

export interface AutocannonResult {
  requests: { average: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  '2xx': number;
  errors: number;
  statusCodeStats?: Record<string, { count: number }>;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
// autocannon ships no types; it is loaded through require and typed by the fields used here
export const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);

export interface BenchServer {
  url: string;
  app: FastifyInstance;
  deps: AppDeps;
  config: Config;
}

/** Runs the `down` of each named migration, last first: the schema as it was before them. */
export async function undoMigrations(db: Db, names: readonly string[]): Promise<void> {
  for (const name of [...names].reverse()) {
    const migration = migrations[name];
    if (migration?.down === undefined) throw new Error(`no migration ${name} with a down to undo`);
    await migration.down(db);
  }
}

/**
 * The bench's own database, dropped, recreated and migrated: every run starts from the same empty
 * state. `without`: migrations undone again (their `down`, last first), to measure the schema
 * before them in the same run as the one after.
 */
export async function prepareBenchDatabase(databaseUrl: string, without: readonly string[] = []): Promise<void> {
  await recreateDatabase(databaseUrl);
  const db = createDatabase({ connectionString: databaseUrl, max: 1 });
  try {
    const migrated = await migrateToLatest(db);
    if (migrated.error !== undefined) throw migrated.error;
    await undoMigrations(db, without);
  } finally {
    await db.destroy();
  }
}

/**
 * The environment a bench's api (and its worker child process, bench-worker.ts) is configured
 * from: the caller's, the bench database, development mode, a rate limit no bench reaches, `env` last.
 */
/**
 * A Redis db of the benches' own: a run's rate-limit counters (70,000 clicks from 127.0.0.1 in a
 * minute) must not trip the ceilings of a dev stack or a test run on the same Redis.
 */
export const BENCH_CACHE_URL = process.env.BENCH_CACHE_URL ?? 'redis://127.0.0.1:6379/15';

export function benchEnv(databaseUrl: string, env: Record<string, string>): Record<string, string> {
  return {
    ...(process.env as Record<string, string>),
    NODE_ENV: 'development',
    LOG_LEVEL: 'warn',
    DATABASE_URL: databaseUrl,
    AUTH_SECRET: process.env.AUTH_SECRET ?? 'bench-auth-secret-at-least-32-characters',
    EMAIL_PROVIDER_API_KEY: process.env.EMAIL_PROVIDER_API_KEY ?? 'bench:bench',
    // production seals every Temporal payload (docs/security.md): the benches pay for the codec too
    ENCRYPTION_KEYS: process.env.ENCRYPTION_KEYS ?? `bench-1:${'b3'.repeat(32)}`,
    CACHE_URL: BENCH_CACHE_URL,
    RATE_LIMIT_MAX: '100000000',
    // one client address stands for many readers: past the tracking ceiling a click takes the over-ceiling path
    TRACKING_RATE_LIMIT_MAX: '100000000',
    ...env,
  };
}

export interface BenchServerOptions {
  /** the task queue `/bench/baseline/start` starts the ping workflow on (default: the api's queue) */
  pingTaskQueue?: string;
  /** migrations undone after migrating (see prepareBenchDatabase) */
  without?: readonly string[];
}

/** Prepares `databaseUrl` (recreated empty) and listens on a random local port. */
export async function startBenchServer(databaseUrl: string, env: Record<string, string>, options: BenchServerOptions = {}): Promise<BenchServer> {
  await prepareBenchDatabase(databaseUrl, options.without);
  return listenBenchServer(benchEnv(databaseUrl, env), options);
}

/** The bench's api on a prepared database, configured from `env` (see benchEnv). */
export async function listenBenchServer(env: Record<string, string>, options: BenchServerOptions & { port?: number } = {}): Promise<BenchServer> {
  const config = loadConfig(env);
  const logger = createLogger({ level: 'warn', name: 'bench', format: 'json', traceIds: config.tracing.enabled });
  // as server.ts: tracing on when the bench's env sets OTEL_EXPORTER_OTLP_ENDPOINT (email-latency's BENCH_TRACING)
  await startTracing(config, 'waymark-api');
  const deps = await createAppDeps(config, logger);
  const app = await buildApp({ deps, logger });
  await registerBaselineRoutes(app, deps, { pingTaskQueue: options.pingTaskQueue ?? config.temporal.taskQueue });
  const url = await app.listen({ port: options.port ?? 0, host: '127.0.0.1' });
  return { url, app, deps, config };
}
