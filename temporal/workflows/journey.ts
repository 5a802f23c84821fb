import { ApplicationFailure, patched, proxyActivities, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import { withPolicyQuietHours } from '@waymark/journey';
import { journeys } from '@waymark/journeys';
import { deliveryPolicy } from '@waymark/journeys/delivery-policy';
import { enterWithVia, type EnterJourneyWith, type EnterJourneyWithActivities, type EnterJourneyWithInput } from '../entry-with-first-step';
import { journeyCalls, type JourneyRunCalls, type StepName } from '../journey-calls';
import { startJourneyRun, type JourneyRunOutcome } from './journey-run';
import { journeyEventSignal, journeyProgressQuery } from './journey-signals';
import type { JourneyWorkflowInput } from './journey-input';
import type { JourneyRuntime } from './journey-runtime';
import { temporalJourneyRuntime } from './temporal-journey-runtime';

export type { JourneyRunOutcome } from './journey-run';

/**
 * The start-to-close timeout is also how long Temporal waits before retrying an activity whose
 * worker died mid-call (nothing else tells the server the attempt is gone), so it is kept close to
 * the slowest healthy call, not to a comfortable upper bound (docs/scaling.md, crash recovery).
 * Mirror writes are single statements that take milliseconds; they must survive a database blip,
 * hence the long, bounded retry.
 *
 * The backoff is capped at 10 s: after an outage of PostgreSQL or Temporal every waiting run
 * retries within 10 s of the service coming back, where a 30 s or 1 min cap left runs idle for that
 * long after recovery (the chaos run's convergence, docs/scaling.md). More attempts keep the total
 * window as long as before (mirror ≈ 13 min, send ≈ 4.5 min of backoff).
 */
const mirrorOptions = {
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 80 },
} as const;
const remoteMirror = proxyActivities<JourneyRunCalls>(mirrorOptions);
/**
 * The same mirror writes as local activities: they run inside the workflow task on the worker that
 * holds the run, so a step costs no activity task round trip through the server (two fewer
 * dispatches per step and less load on Temporal: bench/HISTORY.md). A worker that dies mid-write
 * loses the workflow task, and the next worker re-runs the write; every mirror write is safe to
 * repeat (entry finds its own state by workflow id).
 */
const localMirror = proxyLocalActivities<JourneyRunCalls>(mirrorOptions);

/** Runs started before the mirror writes became local activities replay with remote ones (the patch marker decides, once per run). */
const LOCAL_MIRROR_PATCH = 'journey-mirror-local-activities';
/**
 * A send renders, writes a few rows and makes one SES call (p99 well under a second when healthy).
 * Provider refusals stop at their own count (docs/email.md); the rest of the attempts are for
 * outages and suppress-window deferrals.
 */
const emailOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 30 },
} as const;
const remoteEmail = proxyActivities<JourneyRunCalls>(emailOptions);
/**
 * The send as a local activity: it runs inside the workflow task, so a run reaches its first
 * timer in ONE workflow task (entry, send, step write) instead of two workflow tasks and an
 * activity task. On one machine the Temporal server's work per run, not the send, was what capped
 * event → email latency (docs/scaling.md, "What limits each path"). Retries keep their policy: short backoffs
 * are retried by the worker, longer ones (the suppress window's `nextRetryDelay`) become a durable
 * timer. A worker that dies mid-send loses its workflow task; the next worker replays the run and
 * sends again under the send's exactly-once rules (docs/email.md), as with an activity task.
 */
const localEmail = proxyLocalActivities<JourneyRunCalls>(emailOptions);

/** The entry with the run's first call, under that call's own options (its kind in journey-calls.ts: a send's, or a mirror write's). */
const enterWithMirror = enterWithVia(proxyLocalActivities<EnterJourneyWithActivities>(mirrorOptions));
const enterWithEmail = enterWithVia(proxyLocalActivities<EnterJourneyWithActivities>(emailOptions));
const enterWith: EnterJourneyWith = <K extends StepName>(input: EnterJourneyWithInput<K>) =>
  journeyCalls[input.step.name].kind === 'send' ? enterWithEmail(input) : enterWithMirror(input);

/** The journey runner on Temporal, with the run's local or remote activities. */
function temporalRuntime(input: JourneyWorkflowInput): JourneyRuntime {
  const local = input.steps === 'local';
  // `||` keeps new runs free of the patch marker (journey-input.ts)
  const mirror = local || patched(LOCAL_MIRROR_PATCH) ? localMirror : remoteMirror;
  const email = local ? localEmail : remoteEmail;
  return temporalJourneyRuntime(mirror, email, input.entry === 'with-first-step' ? enterWith : undefined);
}

/** One enrollment = one workflow run (see journey-run.ts for the rules). */
export async function journeyWorkflow(request: JourneyWorkflowInput): Promise<JourneyRunOutcome> {
  const declared = journeys.find((candidate) => candidate.id === request.journeyId);
  if (declared === undefined) throw ApplicationFailure.nonRetryable(`Unknown journey '${request.journeyId}'`, 'UnknownJourney');
  // the delivery policy's quiet hours for a journey that sets none (docs/journeys.md, "Timing and etiquette")
  const run = startJourneyRun(
    temporalRuntime(request),
    withPolicyQuietHours(declared, deliveryPolicy),
    request,
    request.arms === undefined ? {} : { arm: request.arms },
  );
  setHandler(journeyEventSignal, run.deliver);
  setHandler(journeyProgressQuery, () => run.progress);
  return run.outcome;
}
