/**
 * A bench's Temporal worker, run as a child process of the bench (bench-worker.ts starts it) so it
 * does not share the api's event loop, as in production. It hosts the production worker
 * (apps/worker's createWorker: journeys, activities, the SES transport) on TEMPORAL_TASK_QUEUE
 * and, when BENCH_PING_TASK_QUEUE is set, the trivial ping workflow (a test fixture) on that queue,
 * so a "bare workflow start" baseline has a worker draining it too. Configuration comes from the
 * environment like the worker's. IPC: 'ready' once polling; answers 'pings' with the number of
 * ping runs done and 'statements' with the number of SQL statements sent so far (and of them by name). SIGTERM drains and exits (Worker.run handles it).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker } from '@temporalio/worker';
import pg from 'pg';
import { loadConfig } from '@waymark/core/config/config';
import { createDatabase } from '@waymark/core/db/database';
import { createLogger } from '@waymark/core/logging/logger';
import { startTracing } from '@waymark/core/logging/tracing';
import { temporalConnectionOptions } from '../../temporal/connection';
import { createWorker } from '../../apps/worker/src/worker';
import { createPingActivities } from '../../temporal/test/ping-activities';
import { dataConverterFor } from '@waymark/temporal/payload-codec';

const pingWorkflowsPath = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../temporal/test/ping-workflow.ts');

/**
 * Every statement the worker sends to PostgreSQL (BEGIN and COMMIT included), counted at the
 * driver: benches divide it by the events they posted (statements per send). Counting here keeps
 * the product's modules free of bench code. Those sent by name (a prepared statement, parsed and
 * planned once per connection: packages/core/src/db/named-statements.ts) are counted apart.
 */
const statements = { all: 0, named: 0 };
const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function countedQuery(this: pg.Client, ...args: unknown[]) {
  statements.all += 1;
  const [config] = args;
  if (typeof config === 'object' && config !== null && typeof (config as { name?: unknown }).name === 'string') statements.named += 1;
  return query.apply(this, args);
} as typeof pg.Client.prototype.query;

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger({ level: 'warn', name: 'bench-worker', format: 'json', traceIds: config.tracing.enabled });
  // as apps/worker's main: tracing on when OTEL_EXPORTER_OTLP_ENDPOINT is set (email-latency's BENCH_TRACING)
  const tracing = await startTracing(config, 'waymark-worker');
  const db = createDatabase({ connectionString: config.databaseUrl, applicationName: 'waymark-bench-worker', traceContext: config.tracing.enabled });
  // the relay starts the runs whose start the api kept when Temporal timed out (an overloaded box), as the worker process does
  const journeys = await createWorker({ config, db, logger, relayEventEffects: true, tracing });
  const workers = [journeys.worker];

  let pings = 0;
  let pingConnection: NativeConnection | undefined;
  const pingQueue = process.env.BENCH_PING_TASK_QUEUE;
  if (pingQueue !== undefined && pingQueue !== '') {
    pingConnection = await NativeConnection.connect(temporalConnectionOptions(config.temporal));
    const { ping } = createPingActivities({ workerId: 'bench' });
    workers.push(
      await Worker.create({
        connection: pingConnection,
        namespace: config.temporal.namespace,
        taskQueue: pingQueue,
        workflowsPath: pingWorkflowsPath,
        ...dataConverterFor(config.encryptionKeys),
        activities: {
          async ping(name: string) {
            pings += 1;
            return ping(name);
          },
        },
      }),
    );
  }
  process.on('message', (message) => {
    if (message === 'pings') process.send?.({ pings });
    if (message === 'statements') process.send?.({ statements });
  });
  const running = Promise.all(workers.map((worker) => worker.run()));
  process.send?.('ready');
  await running;
  await journeys.close();
  await pingConnection?.close();
  await db.destroy();
  await tracing?.shutdown();
  process.disconnect?.();
}

main().catch((error: unknown) => {
  console.error('bench worker failed:', error);
  process.exit(1);
});
