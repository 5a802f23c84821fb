import { sql } from 'kysely';
import { loadConfig } from '@waymark/core/config/config';
import { createDatabase } from '@waymark/core/db/database';
import { ensureDatabaseExists } from '@waymark/core/db/ensure-database';
import { migrateToLatest } from '@waymark/core/db/migrator';
import { createLogger } from '@waymark/core/logging/logger';
import { createWorker } from '../apps/worker/src/worker';
import { releaseTaskQueue } from './task-queue-cleanup';
import { integrationEnv } from './test-env';

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
  // No outbound delivery slots here (dispatchOutbound): deliveries are a queue in PostgreSQL worked
  // beside the Temporal worker, not a task queue of it, and tests that read the outbox must find it
  // as written. Tests that deliver start a worker with them on a scratch database of their own
  // (apps/api/src/routes/webhook-isolation.int.test.ts, admin/webhook-endpoints.int.test.ts).
  const { worker, close } = await createWorker({ config, db, logger });
  const running = worker.run();

  return async () => {
    worker.shutdown();
    await running;
    // journeys the tests left asleep on this run's queue would otherwise wait on the dev server for days
    await releaseTaskQueue(env.TEMPORAL_ADDRESS, config.temporal.taskQueue);
    await close();
    await db.destroy();
  };
}
