import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { isCancellation } from '@temporalio/workflow';
import { eventPassesWhere, holdoutArm, type Journey } from '@waymark/journey';
import type { EnterJourneyInput, EntryRejection } from '@waymark/core/journeys/run-steps';
import type { JourneyEventSignal, JourneyRunRequest } from '@waymark/core/journeys/orchestrator';
import { createJourneyContext, StateEnded } from './journey-context';
import type { JourneyProgress } from './journey-signals';
import type { EnterJourneyWith, StepInput, StepOutput } from '../entry-with-first-step';
import { journeyCallsBy, type JourneyRunCalls, type StepName } from '../journey-calls';
import type { JourneyRuntime } from './journey-runtime';

export type JourneyRunOutcome = { outcome: 'skipped'; reason: 'trigger_where' | EntryRejection } | { outcome: 'completed' | 'exited'; stateId: string };

/**
 * How a run decides its person's arm (docs/journeys.md, "Goals, holdouts and lift"): `assign`
 * hashes the journey's holdout (every run started now); `holdout` or `treatment` forces it (the
 * test kit). Absent (runs started before arms existed, whose replay must not change): no arm, so
 * every email goes and nothing is counted.
 */
export interface JourneyRunOptions {
  arm?: 'assign' | 'holdout' | 'treatment';
}

/** The arm recorded on the state: undefined when the run has none or the journey measures nothing. */
function runArm(journey: Journey, userId: string, arm: JourneyRunOptions['arm']): boolean | undefined {
  if (arm === undefined || (journey.goal === undefined && journey.holdout === undefined)) return undefined;
  if (arm !== 'assign') return arm === 'holdout';
  return holdoutArm(journey, userId)?.holdout ?? false;
}

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
 * that fails it is not an entry); the entry guards run in one activity, on its own before the
 * journey body or together with the body's first call (`runtime.entryWithFirstStep`).
 * Cancellation (exit rule or admin DELETE) records `exited` and ends the run as cancelled;
 * any other error records `failed` (+ journey:failed) and fails the run without retrying.
 */
export function startJourneyRun(runtime: JourneyRuntime, journey: Journey, request: JourneyRunRequest, options: JourneyRunOptions = {}): JourneyRunHandle {
  const inbox: JourneyEventSignal[] = [];
  const progress: JourneyProgress = { phase: 'running', nodeId: 'start', received: 0 };
  return {
    deliver(event) {
      progress.received += 1;
      if (!inbox.some((seen) => seen.eventId === event.eventId)) inbox.push(event);
    },
    progress,
    outcome: runJourney(runtime, journey, request, inbox, progress, runArm(journey, request.userId, options.arm)),
  };
}

async function runJourney(
  runtime: JourneyRuntime,
  journey: Journey,
  request: JourneyRunRequest,
  inbox: JourneyEventSignal[],
  progress: JourneyProgress,
  holdout: boolean | undefined,
): Promise<JourneyRunOutcome> {
  if (!eventPassesWhere(request.trigger.event, journey.trigger.where, request.properties)) return { outcome: 'skipped', reason: 'trigger_where' };

  const { workflowId, runId, calls } = runtime;
  const entry: EnterJourneyInput = {
    journeyId: journey.id,
    userId: request.userId,
    userEmail: request.userEmail,
    workflowId,
    runId,
    entryLimit: journey.entryLimit,
    ...(journey.category === undefined ? {} : { category: journey.category }),
    // from the input, not a new command: histories recorded before versions replay unchanged
    ...(request.journeyVersion === undefined ? {} : { journeyVersion: request.journeyVersion }),
    ...(holdout === undefined ? {} : { holdout }),
    context: {
      trigger: { event: request.trigger.event, eventId: request.trigger.eventId, occurredAt: request.trigger.occurredAt },
      properties: request.properties,
    },
  };
  const given = request.userEmail.trim();
  const withFirstStep = runtime.entryWithFirstStep;
  // without the event's address the entry looks up the contact's, which the run needs before its body
  if (withFirstStep !== undefined && given !== '') {
    const { stateId, enterWith } = withFirstStep;
    try {
      return await runBody(
        { ...runtime, calls: callsEnteringFirst(calls, { ...entry, stateId }, enterWith) },
        journey,
        request,
        inbox,
        progress,
        stateId,
        given,
        holdout === true,
      );
    } catch (error) {
      if (error instanceof EntryRefused) return { outcome: 'skipped', reason: error.reason };
      throw error;
    }
  }
  const entered = await calls.enterJourney(entry);
  if (!entered.entered) return { outcome: 'skipped', reason: entered.reason };
  return runBody(runtime, journey, request, inbox, progress, entered.stateId, entered.userEmail, holdout === true);
}

/** The entry guards refused a run whose entry went with its first call: the run is skipped. */
class EntryRefused extends Error {
  constructor(readonly reason: EntryRejection) {
    super(`journey entry refused: ${reason}`);
    this.name = 'EntryRefused';
  }
}

/**
 * The run's calls, of which the first (whichever it is) also makes the entry: one local activity
 * fewer per run (bench/HISTORY.md). Nothing of the journey body before its first call is written
 * anywhere, so a refused entry throws there and leaves nothing behind, as an entry of its own does.
 */
function callsEnteringFirst(calls: JourneyRunCalls, entry: EnterJourneyInput & { stateId: string }, enterWith: EnterJourneyWith): JourneyRunCalls {
  let entered = false;
  const first =
    <K extends StepName>(name: K) =>
    async (input: StepInput<K>): Promise<StepOutput<K>> => {
      if (entered) return (calls[name] as (stepInput: StepInput<K>) => Promise<StepOutput<K>>)(input);
      const outcome = await enterWith({ entry, step: { name, input } });
      if (!outcome.entered) throw new EntryRefused(outcome.reason);
      entered = true;
      return outcome.result;
    };
  return journeyCallsBy((name) => (name === 'enterJourney' ? calls[name] : (first(name as StepName) as JourneyRunCalls[typeof name])));
}

/** The journey body and how it ends, once the run has (or will have, with its first call) its state. */
async function runBody(
  runtime: JourneyRuntime,
  journey: Journey,
  request: JourneyRunRequest,
  inbox: JourneyEventSignal[],
  progress: JourneyProgress,
  stateId: string,
  userEmail: string,
  heldOut: boolean,
): Promise<JourneyRunOutcome> {
  const { workflowId, calls } = runtime;
  const ctx = createJourneyContext({ runtime, journey, request, stateId, userEmail, workflowId, inbox, progress, heldOut });
  try {
    await journey.run(ctx);
    // a cancellation that arrived during the last (shielded) step still ends the run as exited
    if (runtime.cancelled()) throw new CancelledFailure('Journey run cancelled');
  } catch (error) {
    // the run never entered: nothing to finish
    if (error instanceof EntryRefused) throw error;
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
