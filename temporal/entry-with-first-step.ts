/**
 * A journey run's entry made with its first call (docs/scaling.md, "One local activity fewer per
 * run"): the shapes both sides share, and the activity names. Workflow code imports this module;
 * the activities themselves are in activities/enter-journey-with.ts.
 */
import type { EnterJourneyInput, EntryRejection } from '@waymark/core/journeys/run-steps';
import type { JourneyActivities } from './activities/journey';
import type { SendJourneyEmailActivities } from './activities/send-journey-email';

/** The calls a run makes after its entry: any of them can be its first step. */
export type StepCalls = Pick<JourneyActivities, 'recordJourneyStep' | 'finishJourneyRun' | 'findJourneyEvents' | 'hasJourneyEvent' | 'recipientTimeZone'> &
  SendJourneyEmailActivities;
export type StepName = keyof StepCalls;
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

/**
 * One activity per first step, the step in its name (`enterJourneyWithSendJourneyEmail`): a replay
 * compares a local activity by its type only, so a journey change that makes another call first
 * is still caught as incompatible by the journeys check, as it was with the entry on its own.
 */
export type EnterJourneyWithActivities = {
  [K in StepName as `enterJourneyWith${Capitalize<K>}`]: (input: EnterJourneyWithInput<K>) => Promise<EnterJourneyWithResult<K>>;
};

export function enterWithActivityName<K extends StepName>(step: K): `enterJourneyWith${Capitalize<K>}` {
  return `enterJourneyWith${step.charAt(0).toUpperCase()}${step.slice(1)}` as `enterJourneyWith${Capitalize<K>}`;
}

/** Calls the activity of `input`'s step from a set of them (a proxy of the workflow, or the activities themselves). */
export function enterWithVia(activities: EnterJourneyWithActivities): EnterJourneyWith {
  return <K extends StepName>(input: EnterJourneyWithInput<K>) => {
    const activity = activities[enterWithActivityName(input.step.name)] as unknown as (input: EnterJourneyWithInput<K>) => Promise<EnterJourneyWithResult<K>>;
    return activity(input);
  };
}
