import {
  isGrpcServiceError,
  QueryNotRegisteredError,
  ServiceError,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  type Client,
} from '@temporalio/client';
import { unavailable } from '@waymark/core/errors/app-error';
import type { JourneyEventSignal, JourneyOrchestrator } from '@waymark/core/journeys/orchestrator';
import { JOURNEY_ID_ATTRIBUTE, JOURNEY_VERSION_ATTRIBUTE, USER_ID_ATTRIBUTE } from './search-attributes';
import type { journeyWorkflow } from './workflows/journey';
import { journeyWorkflowInput } from './workflows/journey-input';
import { journeyEventSignal, journeyProgressQuery } from './workflows/journey-signals';
import { journeyWorkflowId } from './journey-workflow-id';

/**
 * How long a start (a signal, a cancellation) may wait for Temporal. Without a deadline the client keeps retrying a server
 * that is down, and the ingest request that triggered the start hangs with it; past the deadline
 * the start fails as `unavailable`, core keeps it as a pending start for the worker's relay and the
 * event is still accepted. A start that reached the server just before the deadline is harmless to
 * retry: the workflow id is the event's, with the USE_EXISTING conflict policy.
 */
const START_DEADLINE_MS = 5_000;

/**
 * gRPC statuses that mean "the server could not be reached, went away mid-call, did not answer in
 * time, or is overloaded": the start may succeed later unchanged. A server killed mid-call shows
 * as CANCELLED ("Call cancelled") or UNKNOWN/INTERNAL (a reset stream), not only UNAVAILABLE.
 * Any other status is a refusal (bad request, unknown namespace, permission) waiting will not fix.
 */
const ENGINE_UNAVAILABLE_CODES = new Set([
  1, // CANCELLED
  2, // UNKNOWN
  4, // DEADLINE_EXCEEDED
  8, // RESOURCE_EXHAUSTED
  13, // INTERNAL
  14, // UNAVAILABLE
]);

/** The gRPC failure's text when `error` is such a status, else undefined. */
function engineUnavailable(error: unknown): string | undefined {
  const grpc = error instanceof ServiceError ? error.cause : error;
  return isGrpcServiceError(grpc) && ENGINE_UNAVAILABLE_CODES.has(grpc.code) ? grpc.message : undefined;
}

/** `unavailable` when `error` says Temporal could not be reached or timed out (the call may succeed later unchanged), else `error`. */
function asUnavailable(error: unknown, doing: string): unknown {
  const reason = engineUnavailable(error);
  return reason === undefined ? error : unavailable(`Temporal unreachable or timed out ${doing}: ${reason}`);
}

/**
 * The orchestrator port of core, implemented on a Temporal client (api and worker alike). `versions`:
 * journey id → its version, stamped on every run it starts (runtime/journey-versions.ts computes them).
 */
export function createTemporalOrchestrator(client: Client, taskQueue: string, versions: ReadonlyMap<string, string>): JourneyOrchestrator {
  return {
    async startJourney(request) {
      const workflowId = journeyWorkflowId(request);
      // the version travels in the input (the run's first mirror write stores it) and as a search attribute
      const journeyVersion = request.journeyVersion ?? versions.get(request.journeyId);
      const versioned = journeyVersion === undefined ? request : { ...request, journeyVersion };
      try {
        const handle = await client.withDeadline(Date.now() + START_DEADLINE_MS, () =>
          client.workflow.start<typeof journeyWorkflow>('journeyWorkflow', {
            taskQueue,
            workflowId,
            args: [journeyWorkflowInput(versioned)],
            workflowIdConflictPolicy: 'USE_EXISTING',
            workflowIdReusePolicy: 'REJECT_DUPLICATE',
            typedSearchAttributes: [
              { key: JOURNEY_ID_ATTRIBUTE, value: request.journeyId },
              { key: USER_ID_ATTRIBUTE, value: request.userId },
              ...(journeyVersion === undefined ? [] : [{ key: JOURNEY_VERSION_ATTRIBUTE, value: journeyVersion }]),
            ],
          }),
        );
        return { workflowId, runId: handle.firstExecutionRunId };
      } catch (error) {
        // the run for this very event already ran to completion: nothing to start again
        if (error instanceof WorkflowExecutionAlreadyStartedError) return { workflowId, runId: '' };
        throw asUnavailable(error, `starting ${workflowId}`);
      }
    },

    async signalEvent(workflowId: string, event: JourneyEventSignal) {
      try {
        await client.withDeadline(Date.now() + START_DEADLINE_MS, () => client.workflow.getHandle(workflowId).signal(journeyEventSignal, event));
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return;
        throw asUnavailable(error, `signalling ${workflowId}`);
      }
    },

    async runProgress(workflowId: string) {
      try {
        const handle = client.workflow.getHandle(workflowId);
        const description = await handle.describe();
        if (description.status.name !== 'RUNNING') return undefined;
        const { phase, nodeId, waitingFor, until } = await handle.query(journeyProgressQuery);
        return { phase, nodeId, ...(waitingFor === undefined ? {} : { waitingFor }), ...(until === undefined ? {} : { until }) };
      } catch (error) {
        // a run from before the progress query existed, or Temporal unreachable: explain falls back to the journey log
        if (error instanceof WorkflowNotFoundError || error instanceof QueryNotRegisteredError) return undefined;
        throw error;
      }
    },

    async deleteRun(workflowId: string) {
      try {
        await client.withDeadline(Date.now() + START_DEADLINE_MS, () =>
          client.workflowService.deleteWorkflowExecution({ namespace: client.options.namespace, workflowExecution: { workflowId } }),
        );
        return true;
      } catch (error) {
        const grpc = error instanceof ServiceError ? error.cause : error;
        // NOT_FOUND: deleted already, or past the namespace's retention
        if (isGrpcServiceError(grpc) && grpc.code === 5) return false;
        throw asUnavailable(error, `deleting ${workflowId}`);
      }
    },

    async cancelRun(workflowId: string) {
      try {
        await client.withDeadline(Date.now() + START_DEADLINE_MS, () => client.workflow.getHandle(workflowId).cancel());
        return true;
      } catch (error) {
        // already finished: nothing to cancel
        if (error instanceof WorkflowNotFoundError) return false;
        throw asUnavailable(error, `cancelling ${workflowId}`);
      }
    },
  };
}
