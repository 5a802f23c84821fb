import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { isCancellation } from '@temporalio/workflow';
import { eventPassesWhere, type Journey } from '@waymark/journey';
import type { EntryRejection } from '@waymark/core/journeys/run-steps';
import type { JourneyEventSignal, JourneyRunRequest } from '@waymark/core/journeys/orchestrator';
import { createJourneyContext, StateEnded } from './journey-context';
import type { JourneyProgress } from './journey-signals';
import type { JourneyRuntime } from './journey-runtime';

export type JourneyRunOutcome = { outcome: 'skipped'; reason: 'trigger_where' | EntryRejection } | { outcome: 'completed' | 'exited'; stateId: string };

/** A run in progress: feed it events, read where it is, await how it ended. */
export interface JourneyRunHandle {
  /** delivers one of the user's events (the workflow's signal); a redelivery is ignored */
  deliver(event: JourneyEventSignal): void;
  /** where the run is (the workflow's progress query) */
  progress: JourneyProgress;
  outcome: Promise<JourneyRunOutcome>;
}

/**
 * One enrollment = one run. `trigger.where` is evaluated before anything is written (a trigger
 * that fails it is not an entry); the entry guards run in one activity; then the journey body.
 * Cancellation (exit rule or admin DELETE) records `exited` and ends the run as cancelled;
 * any other error records `failed` (+ journey:failed) and fails the run without retrying.
 */
export function startJourneyRun(runtime: JourneyRuntime, journey: Journey, request: JourneyRunRequest): JourneyRunHandle {
  const inbox: JourneyEventSignal[] = [];
  const progress: JourneyProgress = { phase: 'running', nodeId: 'start', received: 0 };
  return {
    deliver(event) {
      progress.received += 1;
      if (!inbox.some((seen) => seen.eventId === event.eventId)) inbox.push(event);
    },
    progress,
    outcome: runJourney(runtime, journey, request, inbox, progress),
  };
}

async function runJourney(
  runtime: JourneyRuntime,
  journey: Journey,
  request: JourneyRunRequest,
  inbox: JourneyEventSignal[],
  progress: JourneyProgress,
): Promise<JourneyRunOutcome> {
  if (!eventPassesWhere(request.trigger.event, journey.trigger.where, request.properties)) return { outcome: 'skipped', reason: 'trigger_where' };

  const { workflowId, runId, calls } = runtime;
  const entry = await calls.enterJourney({
    journeyId: journey.id,
    userId: request.userId,
    userEmail: request.userEmail,
    workflowId,
    runId,
    entryLimit: journey.entryLimit,
    ...(journey.category === undefined ? {} : { category: journey.category }),
    // from the input, not a new command: histories recorded before versions replay unchanged
    ...(request.journeyVersion === undefined ? {} : { journeyVersion: request.journeyVersion }),
    context: {
      trigger: { event: request.trigger.event, eventId: request.trigger.eventId, occurredAt: request.trigger.occurredAt },
      properties: request.properties,
    },
  });
  if (!entry.entered) return { outcome: 'skipped', reason: entry.reason };
  const { stateId } = entry;

  const ctx = createJourneyContext({ runtime, journey, request, stateId, userEmail: entry.userEmail, workflowId, inbox, progress });
  try {
    await journey.run(ctx);
    // a cancellation that arrived during the last (shielded) step still ends the run as exited
    if (runtime.cancelled()) throw new CancelledFailure('Journey run cancelled');
  } catch (error) {
    if (isCancellation(error)) {
      await runtime.shielded(() => calls.finishJourneyRun({ stateId, status: 'exited', journeyName: journey.name, detail: { reason: 'cancelled' } }));
      throw error;
    }
    if (error instanceof StateEnded) return { outcome: 'exited', stateId };
    const message = describeError(error);
    // the run request goes along so the dead-letter entry can start the journey again
    await calls.finishJourneyRun({ stateId, status: 'failed', errorMessage: message, journeyName: journey.name, retryRequest: request });
    throw ApplicationFailure.nonRetryable(`Journey '${journey.id}' failed: ${message}`, 'JourneyFailed');
  }
  await calls.finishJourneyRun({ stateId, status: 'completed', journeyName: journey.name });
  return { outcome: 'completed', stateId };
}

/**
 * The reason at the root of the failure: an activity failure wraps it in `cause`, and the wrapper's
 * own message depends on how the step ran (an activity task or a local activity), not on what went
 * wrong.
 */
function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof Error) {
    const inner = describeError(cause);
    if (inner !== '') return inner;
  }
  return error.message;
}
