import { NativeConnection } from '@temporalio/worker';
import type { Config } from '@waymark/core/config/config';
import { temporalConnectionOptions } from '@waymark/temporal/connection';
import { temporalClient, temporalStarters, type TemporalStarters } from './client';

export interface WorkerTemporal extends TemporalStarters {
  /** the connection the worker polls on (Worker.create) */
  connection: NativeConnection;
  close(): Promise<void>;
}

/**
 * The worker's handle on Temporal: one native connection serves both its polling and the client its
 * starters use (lifecycle events start journeys, operator notices start system emails, the
 * breakers' judge resumes broadcasts). Connected at once, unlike the api's: a worker that cannot
 * reach Temporal has nothing to do, so it fails its start with the reason. Apart from
 * runtime/client.ts because it loads the worker SDK, which the api never needs.
 */
export async function connectWorkerTemporal(config: Config['temporal'], encryptionKeys: Config['encryptionKeys'], tracing: boolean): Promise<WorkerTemporal> {
  const connection = await NativeConnection.connect(temporalConnectionOptions(config));
  return {
    ...temporalStarters(temporalClient(connection, config.namespace, encryptionKeys, tracing), config.taskQueue),
    connection,
    close: () => connection.close(),
  };
}
