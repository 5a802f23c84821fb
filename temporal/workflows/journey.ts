import { ApplicationFailure, CancellationScope, CancelledFailure, isCancellation, setHandler, workflowInfo } from '@temporalio/workflow';
import { evaluateConditions, type Journey } from '@waymark/journey';
import { journeys } from '@waymark/journeys';
import type { EntryRejection } from '@waymark/core/journeys/run-steps';
import type { JourneyEventSignal, JourneyRunRequest } from '@waymark/core/journeys/orchestrator';
import { createJourneyContext, journeyMirror, StateEnded } from './journey-context';
import { journeyEventSignal, journeyProgressQuery, type JourneyProgress } from './journey-signals';

export type JourneyRunOutcome = { outcome: 'skipped'; reason: 'trigger_where' | EntryRejection } | { outcome: 'completed' | 'exited'; stateId: string };

/**
 * One enrollment = one run. `trigger.where` is evaluated before anything is written (a trigger
 * that fails it is not an entry); the entry guards run in one activity; then the journey body.
 * Cancellation (exit rule or admin DELETE) records `exited` and ends the run as cancelled;
 * any other error records `failed` (+ journey:failed) and fails the run without retrying.
 */
export async function journeyWorkflow(request: JourneyRunRequest): Promise<JourneyRunOutcome> {
  const journey = journeys.find((candidate) => candidate.id === request.journeyId);
  if (journey === undefined) throw ApplicationFailure.nonRetryable(`Unknown journey '${request.journeyId}'`, 'UnknownJourney');
  return runJourney(journey, request);
}

async function runJourney(journey: Journey, request: JourneyRunRequest): Promise<JourneyRunOutcome> {
  const inbox: JourneyEventSignal[] = [];
  const progress: JourneyProgress = { phase: 'running', nodeId: 'start', received: 0 };
  setHandler(journeyEventSignal, (event) => {
    progress.received += 1;
    if (!inbox.some((seen) => seen.eventId === event.eventId)) inbox.push(event);
  });
  setHandler(journeyProgressQuery, () => progress);

  if (!evaluateConditions(journey.trigger.where, request.properties)) return { outcome: 'skipped', reason: 'trigger_where' };

  const { workflowId, runId } = workflowInfo();
  const mirror = journeyMirror();
  const entry = await mirror.enterJourney({
    journeyId: journey.id,
    userId: request.userId,
    userEmail: request.userEmail,
    workflowId,
    runId,
    entryLimit: journey.entryLimit,
    context: {
      trigger: { event: request.trigger.event, eventId: request.trigger.eventId, occurredAt: request.trigger.occurredAt },
      properties: request.properties,
    },
  });
  if (!entry.entered) return { outcome: 'skipped', reason: entry.reason };
  const { stateId } = entry;

  const ctx = createJourneyContext({ journey, request, stateId, userEmail: entry.userEmail, workflowId, inbox, progress, mirror });
  try {
    await journey.run(ctx);
    // a cancellation that arrived during the last (shielded) step still ends the run as exited
    if (CancellationScope.current().consideredCancelled) throw new CancelledFailure('Journey run cancelled');
  } catch (error) {
    if (isCancellation(error)) {
      await CancellationScope.nonCancellable(() =>
        mirror.finishJourneyRun({ stateId, status: 'exited', journeyName: journey.name, detail: { reason: 'cancelled' } }),
      );
      throw error;
    }
    if (error instanceof StateEnded) return { outcome: 'exited', stateId };
    const message = describeError(error);
    // the run request goes along so the dead-letter entry can start the journey again
    await mirror.finishJourneyRun({ stateId, status: 'failed', errorMessage: message, journeyName: journey.name, retryRequest: request });
    throw ApplicationFailure.nonRetryable(`Journey '${journey.id}' failed: ${message}`, 'JourneyFailed');
  }
  await mirror.finishJourneyRun({ stateId, status: 'completed', journeyName: journey.name });
  return { outcome: 'completed', stateId };
}

function describeError(error: unknown): string {
  if (error instanceof Error) {
    // an activity failure wraps the real reason in `cause`
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error && cause.message !== '' ? `${error.message}: ${cause.message}` : error.message;
  }
  return String(error);
}
