import { CancellationScope, condition, sleep, uuid4, workflowInfo } from '@temporalio/workflow';
import type { EnterJourneyWith } from '../entry-with-first-step';
import type { JourneyActivities } from '../activities/journey';
import type { SendJourneyEmailActivities } from '../activities/send-journey-email';
import type { JourneyRuntime } from './journey-runtime';

/**
 * The journey runner on Temporal: durable timers, signals, and the given activity proxies (local
 * or remote, chosen by the caller) with their retries. With `enterWith`, the run makes its entry
 * with its first call, under a state id drawn from the workflow's seeded random source (the same
 * on every replay).
 */
export function temporalJourneyRuntime(mirror: JourneyActivities, email: SendJourneyEmailActivities, enterWith?: EnterJourneyWith): JourneyRuntime {
  const { workflowId, runId } = workflowInfo();
  return {
    workflowId,
    runId,
    now: () => Date.now(),
    calls: {
      enterJourney: mirror.enterJourney,
      recordJourneyStep: mirror.recordJourneyStep,
      finishJourneyRun: mirror.finishJourneyRun,
      findJourneyEvents: mirror.findJourneyEvents,
      hasJourneyEvent: mirror.hasJourneyEvent,
      recipientTimeZone: mirror.recipientTimeZone,
      sendJourneyEmail: email.sendJourneyEmail,
    },
    sleep: (ms) => sleep(ms),
    condition: (test, timeoutMs) => condition(test, timeoutMs),
    shielded: (call) => CancellationScope.nonCancellable(call),
    cancelled: () => CancellationScope.current().consideredCancelled,
    ...(enterWith === undefined ? {} : { entryWithFirstStep: { stateId: uuid4(), enterWith } }),
  };
}
