import type { Worker } from '@temporalio/worker';
import { loadConfig } from '@waymark/core/config/config';
import { createDatabase, type Db } from '@waymark/core/db/database';
import { createLogger } from '@waymark/core/logging/logger';
import { createWorker, type WorkerDeps } from '../apps/worker/src/worker';
import { integrationEnv } from './test-env';

/**
 * A worker in this process on a task queue of the test's own, with the delivery policy the test
 * gives (a mutable object: a test may change it between its cases). Start it before the api: it
 * installs the Temporal runtime of this process before any connection does.
 */
export async function startInProcessWorker(options: {
  taskQueue: string;
  name: string;
  deliveryPolicy?: WorkerDeps['deliveryPolicy'];
}): Promise<{ db: Db; stop: () => Promise<void> }> {
  const config = loadConfig({ ...integrationEnv(), TEMPORAL_TASK_QUEUE: options.taskQueue });
  const db = createDatabase({ connectionString: config.databaseUrl, max: 4 });
  const logger = createLogger({ level: 'error', name: options.name, format: 'json' });
  const worker: { worker: Worker; close: () => Promise<void> } = await createWorker({
    config,
    db,
    logger,
    ...(options.deliveryPolicy === undefined ? {} : { deliveryPolicy: options.deliveryPolicy }),
  });
  const running = worker.worker.run();
  return {
    db,
    stop: async () => {
      worker.worker.shutdown();
      await running;
      await worker.close();
      await db.destroy();
    },
  };
}
