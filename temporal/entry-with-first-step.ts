/**
 * A journey run's entry made with its first call (docs/scaling.md, "One local activity fewer per
 * run"): the shapes both sides share, derived from the list of the run's calls (journey-calls.ts),
 * which also names the activities. Workflow code imports this module; the activities themselves are
 * in activities/enter-journey-with.ts.
 */
import type { EnterJourneyInput, EntryRejection } from '@waymark/core/journeys/run-steps';
import { enteringFirstActivityName, type EnteringFirstActivityName, type JourneyRunCalls, type StepName } from './journey-calls';

/** The calls a run makes after its entry: any of them can be its first step. */
type StepCalls = Pick<JourneyRunCalls, StepName>;
export type StepInput<K extends StepName> = Parameters<StepCalls[K]>[0];
export type StepOutput<K extends StepName> = Awaited<ReturnType<StepCalls[K]>>;

export interface EnterJourneyWithInput<K extends StepName> {
  /** the entry, with the state id the run chose (`stateId` is required here) */
  entry: EnterJourneyInput & { stateId: string };
  /** the run's first call, made only once the entry is in */
  step: { name: K; input: StepInput<K> };
}

export type EnterJourneyWithResult<K extends StepName> = { entered: false; reason: EntryRejection } | { entered: true; result: StepOutput<K> };

/** The entry with a first step, whichever step it is (the run's side: journey-run.ts). */
export type EnterJourneyWith = <K extends StepName>(input: EnterJourneyWithInput<K>) => Promise<EnterJourneyWithResult<K>>;

/** One activity per first step, named in journey-calls.ts (`enterJourneyWithSendJourneyEmail`). */
export type EnterJourneyWithActivities = {
  [K in StepName as EnteringFirstActivityName<K>]: (input: EnterJourneyWithInput<K>) => Promise<EnterJourneyWithResult<K>>;
};

/** Calls the activity of `input`'s step from a set of them (a proxy of the workflow, or the activities themselves). */
export function enterWithVia(activities: EnterJourneyWithActivities): EnterJourneyWith {
  return <K extends StepName>(input: EnterJourneyWithInput<K>) => {
    const activity = activities[enteringFirstActivityName(input.step.name)] as unknown as (
      input: EnterJourneyWithInput<K>,
    ) => Promise<EnterJourneyWithResult<K>>;
    return activity(input);
  };
}
