import { sql } from 'kysely';
import { loadConfig } from '@waymark/core/config/config';
import { createDatabase } from '@waymark/core/db/database';
import { migrateToLatest } from '@waymark/core/db/migrator';
import { createLogger } from '@waymark/core/logging/logger';
import { createWorker } from '../apps/worker/src/worker';
import { integrationEnv } from './test-env';

/** TEST_DATABASE_URL may name a database of its own (e.g. one per developer); create it on first use. */
async function ensureDatabaseExists(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  url.pathname = '/postgres';
  const admin = createDatabase({ connectionString: url.toString(), max: 1 });
  try {
    const existing = await sql<{ n: number }>`select count(*)::int as n from pg_database where datname = ${name}`.execute(admin);
    if (existing.rows[0]?.n === 0) await sql`create database ${sql.id(name)}`.execute(admin);
  } finally {
    await admin.destroy();
  }
}

/**
 * Runs once per integration run: fresh schema in the test database, migrations, and one real
 * Temporal worker (bundled workflows + activities) on a run-specific task queue.
 */
export default async function setup(): Promise<() => Promise<void>> {
  process.env.WAYMARK_TEST_TASK_QUEUE = `waymark-test-${process.pid}-${Date.now()}`;
  const env = integrationEnv();
  const config = loadConfig(env);
  await ensureDatabaseExists(config.databaseUrl);
  const db = createDatabase({ connectionString: config.databaseUrl, max: 4 });
  await sql`drop schema if exists public cascade`.execute(db);
  await sql`create schema public`.execute(db);
  const migrated = await migrateToLatest(db);
  if (migrated.error !== undefined) throw migrated.error;

  const logger = createLogger({ level: 'warn', name: 'test-worker', format: 'json' });
  const { worker, close } = await createWorker({ config, db, logger });
  const running = worker.run();

  return async () => {
    worker.shutdown();
    await running;
    await close();
    await db.destroy();
  };
}
