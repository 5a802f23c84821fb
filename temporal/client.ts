import { Client, Connection } from '@temporalio/client';
import type { Config } from '@waymark/core/config/config';
import type { ImportOrchestrator } from '@waymark/core/imports/import-orchestrator';
import type { EnrollBatchOrchestrator } from '@waymark/core/journeys/enroll-batch-orchestrator';
import type { JourneyOrchestrator } from '@waymark/core/journeys/orchestrator';
import type { ReplayOrchestrator } from '@waymark/core/replays/replay-orchestrator';
import { temporalConnectionOptions } from './connection';
import { createTemporalEnrollBatchOrchestrator } from './enroll-batch-orchestrator';
import { createTemporalImportOrchestrator } from './import-orchestrator';
import { createTemporalOrchestrator } from './journey-orchestrator';
import { createTemporalSimulationOrchestrator } from './simulation-orchestrator';
import type { SimulationOrchestrator } from '@waymark/core/journeys/simulation-orchestrator';
import { createTemporalReplayOrchestrator } from './replay-orchestrator';

export interface TemporalGateway {
  client: Client;
  taskQueue: string;
  /** start / signal / cancel journey runs (core's orchestrator port) */
  orchestrator: JourneyOrchestrator;
  /** start contact import runs (core's import orchestrator port) */
  imports: ImportOrchestrator;
  /** start journey simulation jobs (core's simulation orchestrator port) */
  simulations: SimulationOrchestrator;
  /** start batch-enrollment runs (core's enroll-batch orchestrator port) */
  enrollBatches: EnrollBatchOrchestrator;
  /** start background event replays (core's replay orchestrator port) */
  replays: ReplayOrchestrator;
  /** Resolves when the server answers within the timeout; rejects with the reason otherwise. */
  ping(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * The api's handle on Temporal. The connection is lazy so the api starts (and reports
 * `degraded`) while Temporal is still coming up, instead of refusing to boot.
 */
export function createTemporalGateway(config: Config['temporal']): TemporalGateway {
  const connection = Connection.lazy(temporalConnectionOptions(config));
  // Health probes get their own channel without the SDK's retry interceptor: a probe must answer
  // within its deadline, and retries scheduled past it would outlive the connection on close.
  const probe = Connection.lazy({ ...temporalConnectionOptions(config), interceptors: [] });
  const client = new Client({ connection, namespace: config.namespace });
  return {
    client,
    taskQueue: config.taskQueue,
    orchestrator: createTemporalOrchestrator(client, config.taskQueue),
    imports: createTemporalImportOrchestrator(client, config.taskQueue),
    simulations: createTemporalSimulationOrchestrator(client, config.taskQueue),
    enrollBatches: createTemporalEnrollBatchOrchestrator(client, config.taskQueue),
    replays: createTemporalReplayOrchestrator(client, config.taskQueue),
    async ping(timeoutMs = 1_500) {
      await probe.withDeadline(Date.now() + timeoutMs, () => probe.workflowService.getSystemInfo({}));
    },
    async close() {
      await Promise.all([connection.close(), probe.close()]);
    },
  };
}
