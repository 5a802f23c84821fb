import { ApplicationFailure } from '@temporalio/common';
import type { EnterJourneyWithActivities, EnterJourneyWithInput, EnterJourneyWithResult, StepInput, StepOutput } from '../entry-with-first-step';
import { enteringFirstActivityName, stepNames, type JourneyRunCalls, type StepName } from '../journey-calls';

/**
 * The entry and the run's first call as ONE activity (docs/scaling.md, "One local activity fewer
 * per run"): each local activity is a round trip between the workflow thread and the worker's
 * main thread, and nothing needs the entry's answer before the first call, given a state id chosen
 * by the run. A retry repeats both halves, each safe to repeat on its own: the entry finds its own
 * state by workflow id, the call keeps its own rules (a send's idempotency key).
 */
export function createEnterJourneyWithActivities(calls: JourneyRunCalls): EnterJourneyWithActivities {
  const enterWith =
    <K extends StepName>(name: K) =>
    async (input: EnterJourneyWithInput<K>): Promise<EnterJourneyWithResult<K>> => {
      const entry = await calls.enterJourney(input.entry);
      if (!entry.entered) return entry;
      // only a run reset to before its first step (a new random seed) chooses another id for a
      // state its workflow id already entered; its steps would write to a state that is not there
      if (entry.stateId !== input.entry.stateId)
        throw ApplicationFailure.nonRetryable(`this run's state was entered as ${entry.stateId}, not ${input.entry.stateId}`, 'StateIdMismatch');
      const call = calls[name] as (stepInput: StepInput<K>) => Promise<StepOutput<K>>;
      return { entered: true, result: await call(input.step.input) };
    };
  // one per step, under the name journey-calls.ts writes out for it
  return Object.fromEntries(stepNames.map((name) => [enteringFirstActivityName(name), enterWith(name)])) as EnterJourneyWithActivities;
}
