import { CancellationScope, condition, sleep, uuid4, workflowInfo } from '@temporalio/workflow';
import type { EnterJourneyWith } from '../entry-with-first-step';
import { journeyCalls, journeyCallsBy, type JourneyRunCalls } from '../journey-calls';
import type { JourneyRuntime } from './journey-runtime';

/**
 * The journey runner on Temporal: durable timers, signals, and the given activity proxies (local
 * or remote, chosen by the caller) with their retries, each call from the set its kind in journey-calls.ts
 * names. With `enterWith`, the run makes its entry with its first call, under a state id drawn from
 * the workflow's seeded random source (the same on every replay).
 */
export function temporalJourneyRuntime(mirror: JourneyRunCalls, email: JourneyRunCalls, enterWith?: EnterJourneyWith): JourneyRuntime {
  const { workflowId, runId } = workflowInfo();
  return {
    workflowId,
    runId,
    now: () => Date.now(),
    calls: journeyCallsBy((name) => (journeyCalls[name].kind === 'send' ? email : mirror)[name]),
    sleep: (ms) => sleep(ms),
    condition: (test, timeoutMs) => condition(test, timeoutMs),
    shielded: (call) => CancellationScope.nonCancellable(call),
    cancelled: () => CancellationScope.current().consideredCancelled,
    ...(enterWith === undefined ? {} : { entryWithFirstStep: { stateId: uuid4(), enterWith } }),
  };
}
