import { Client, Connection } from '@temporalio/client';
import type { Config } from '@waymark/core/config/config';
import type { BackgroundJobs } from '@waymark/core/jobs/background-jobs';
import type { JourneyOrchestrator } from '@waymark/core/journeys/orchestrator';
import { createTemporalBackgroundJobs } from '@waymark/temporal/background-jobs';
import { temporalConnectionOptions } from '@waymark/temporal/connection';
import { createTemporalOrchestrator } from '@waymark/temporal/journey-orchestrator';
import { deploymentJourneyVersions } from './runtime';
import { tracingClientInterceptors } from '@waymark/temporal/tracing';

export interface TemporalGateway {
  client: Client;
  taskQueue: string;
  /** start / signal / cancel journey runs (core's orchestrator port) */
  orchestrator: JourneyOrchestrator;
  /** start, follow and cancel background jobs: imports, replays, simulations, batch enrollments (core's BackgroundJobs port) */
  jobs: BackgroundJobs;
  /** Resolves when the server answers within the timeout; rejects with the reason otherwise. */
  ping(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * The api's handle on Temporal. The connection is lazy so the api starts (and reports
 * `degraded`) while Temporal is still coming up, instead of refusing to boot.
 */
export function createTemporalGateway(config: Config['temporal'], tracing: Config['tracing']): TemporalGateway {
  const connection = Connection.lazy(temporalConnectionOptions(config));
  // Health probes get their own channel without the SDK's retry interceptor: a probe must answer
  // within its deadline, and retries scheduled past it would outlive the connection on close.
  const probe = Connection.lazy({ ...temporalConnectionOptions(config), interceptors: [] });
  // tracing on: a start or signal carries the request's trace to the run (docs/operations.md, "Tracing")
  const client = new Client({ connection, namespace: config.namespace, ...tracingClientInterceptors(tracing.enabled) });
  return {
    client,
    taskQueue: config.taskQueue,
    orchestrator: createTemporalOrchestrator(client, config.taskQueue, deploymentJourneyVersions()),
    jobs: createTemporalBackgroundJobs(client, config.taskQueue),
    async ping(timeoutMs = 1_500) {
      await probe.withDeadline(Date.now() + timeoutMs, () => probe.workflowService.getSystemInfo({}));
    },
    async close() {
      await Promise.all([connection.close(), probe.close()]);
    },
  };
}
