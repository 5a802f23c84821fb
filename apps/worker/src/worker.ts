import { createRequire } from 'node:module';
import { hostname } from 'node:os';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { Config } from '@waymark/core/config/config';
import type { Db } from '@waymark/core/db/database';
import type { AppLogger } from '@waymark/core/logging/logger';
import { createActivities } from '@waymark/temporal/activities/index';
import { temporalConnectionOptions } from '@waymark/temporal/connection';

const require = createRequire(import.meta.url);

export interface WorkerDeps {
  config: Config;
  db: Db;
  logger: AppLogger;
}

let runtimeInstalled = false;

/** Builds a worker on the configured task queue; tests use it too, against the dev server. */
export async function createWorker(deps: WorkerDeps): Promise<{ worker: Worker; close: () => Promise<void> }> {
  if (!runtimeInstalled) {
    runtimeInstalled = true;
    // The SDK's own INFO lines (worker state changes) drown the service log; keep warnings.
    Runtime.install({ logger: new DefaultLogger('WARN') });
  }
  const connection = await NativeConnection.connect(temporalConnectionOptions(deps.config.temporal));
  const worker = await Worker.create({
    connection,
    namespace: deps.config.temporal.namespace,
    taskQueue: deps.config.temporal.taskQueue,
    workflowsPath: require.resolve('@waymark/temporal/workflows/index'),
    activities: createActivities({ workerId: hostname() }),
    shutdownGraceTime: '30 seconds',
  });
  return {
    worker,
    close: () => connection.close(),
  };
}
