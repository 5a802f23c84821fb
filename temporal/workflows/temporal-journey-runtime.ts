import { CancellationScope, condition, sleep, workflowInfo } from '@temporalio/workflow';
import type { JourneyActivities } from '../activities/journey';
import type { SendJourneyEmailActivities } from '../activities/send-journey-email';
import type { JourneyRuntime } from './journey-runtime';

/**
 * The journey runner on Temporal: durable timers, signals, and the given activity proxies (local
 * or remote, chosen by the caller) with their retries.
 */
export function temporalJourneyRuntime(mirror: JourneyActivities, email: SendJourneyEmailActivities): JourneyRuntime {
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
  };
}
