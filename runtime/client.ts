import { Client, Connection, type ConnectionLike } from '@temporalio/client';
import type { Config } from '@waymark/core/config/config';
import type { SystemEmailStart } from '@waymark/core/emails/system-emails';
import type { BackgroundJobs } from '@waymark/core/jobs/background-jobs';
import type { JourneyOrchestrator } from '@waymark/core/journeys/orchestrator';
import { createTemporalBackgroundJobs } from '@waymark/temporal/background-jobs';
import { temporalConnectionOptions } from '@waymark/temporal/connection';
import { createTemporalOrchestrator } from '@waymark/temporal/journey-orchestrator';
import { systemEmailStarter } from '@waymark/temporal/system-email';
import { deploymentJourneyVersions } from './runtime';
import { tracingClientInterceptors } from '@waymark/temporal/tracing';
import { dataConverterFor } from '@waymark/temporal/payload-codec';

/**
 * What a process starts runs through: one client on the configured task queue and the starters
 * built on it. The api and the worker take theirs from here, so a journey run, a background job or
 * a system email is started the same way whichever process starts it.
 */
export interface TemporalStarters {
  client: Client;
  taskQueue: string;
  /** start / signal / cancel journey runs (core's orchestrator port) */
  orchestrator: JourneyOrchestrator;
  /** start, follow and cancel background jobs: imports, replays, simulations, batch enrollments (core's BackgroundJobs port) */
  jobs: BackgroundJobs;
  /** start a system email's run (core/emails/system-emails.ts) */
  systemEmails: SystemEmailStart;
}

/** The starters on a client; the orchestrator stamps this deployment's journey versions on every run. */
export function temporalStarters(client: Client, taskQueue: string): TemporalStarters {
  return {
    client,
    taskQueue,
    orchestrator: createTemporalOrchestrator(client, taskQueue, deploymentJourneyVersions()),
    jobs: createTemporalBackgroundJobs(client, taskQueue),
    systemEmails: systemEmailStarter(client, taskQueue),
  };
}

/**
 * A client whose interceptors carry a start's or signal's trace to the run when tracing is on
 * (docs/operations.md, "Tracing"), and whose payloads are sealed when ENCRYPTION_KEYS is
 * set (docs/security.md, "What is kept secret, and where").
 */
export function temporalClient(connection: ConnectionLike, namespace: string, encryptionKeys: Config['encryptionKeys'], tracing: boolean): Client {
  return new Client({ connection, namespace, ...dataConverterFor(encryptionKeys), ...tracingClientInterceptors(tracing) });
}

export interface TemporalGateway extends TemporalStarters {
  /** Resolves when the server answers within the timeout; rejects with the reason otherwise. */
  ping(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * The api's handle on Temporal. The connection is lazy so the api starts (and reports
 * `degraded`) while Temporal is still coming up, instead of refusing to boot.
 */
export function createTemporalGateway(config: Config['temporal'], encryptionKeys: Config['encryptionKeys'], tracing: Config['tracing']): TemporalGateway {
  const connection = Connection.lazy(temporalConnectionOptions(config));
  // Health probes get their own channel without the SDK's retry interceptor: a probe must answer
  // within its deadline, and retries scheduled past it would outlive the connection on close.
  const probe = Connection.lazy({ ...temporalConnectionOptions(config), interceptors: [] });
  return {
    ...temporalStarters(temporalClient(connection, config.namespace, encryptionKeys, tracing.enabled), config.taskQueue),
    async ping(timeoutMs = 1_500) {
      await probe.withDeadline(Date.now() + timeoutMs, () => probe.workflowService.getSystemInfo({}));
    },
    async close() {
      await Promise.all([connection.close(), probe.close()]);
    },
  };
}

/**
 * A tool's client, connected at once: a command against an unreachable server should fail with
 * the reason rather than wait as the api's lazy connection does. The CLI's journeys check reads
 * live runs' histories through it and starts nothing, so it carries no starters.
 */
export async function connectTemporalClient(
  config: Pick<Config['temporal'], 'address' | 'tls' | 'apiKey' | 'namespace'>,
  encryptionKeys: Config['encryptionKeys'],
): Promise<{ client: Client; close: () => Promise<void> }> {
  const connection = await Connection.connect(temporalConnectionOptions(config));
  return { client: temporalClient(connection, config.namespace, encryptionKeys, false), close: () => connection.close() };
}
