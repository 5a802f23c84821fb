/**
 * The calls a journey run makes: every `ctx` method (workflows/journey-context.ts) reaches the
 * database or the send path only through these. This is the one list of them (docs/contributing.md,
 * "Adding a ctx call"): their signatures, how each runs on Temporal and the activity that makes it
 * together with the run's entry. The rest is derived from it: the worker's fused activities
 * (activities/enter-journey-with.ts), the entering-first table (entry-with-first-step.ts), the
 * call maps of the Temporal and the virtual runtimes, the test kit's in-memory world and its
 * worker's dispatcher. Workflow code imports this module: types and plain data only.
 */
import type { PropertyCondition } from '@waymark/journey';
import type { UserEvent, WaitTrigger } from '@waymark/core/events/user-history';
import type { SendJourneyEmailInput, SendJourneyEmailResult } from '@waymark/core/journeys/journey-email';
import type { JourneyRunRequest } from '@waymark/core/journeys/orchestrator';
import type { EnterJourneyInput, EnterJourneyResult, FinishRunInput, JourneyStepInput } from '@waymark/core/journeys/run-steps';

export interface FinishJourneyInput extends FinishRunInput {
  journeyName: string;
  /** on failure: the run's request, parked in the DLQ so an operator can run the journey again */
  retryRequest?: JourneyRunRequest;
}

/** The signature of each call; the worker's activities and the test kit's world implement them all. */
export interface JourneyRunCalls {
  enterJourney: (input: EnterJourneyInput) => Promise<EnterJourneyResult>;
  recordJourneyStep: (input: JourneyStepInput) => Promise<boolean>;
  finishJourneyRun: (input: FinishJourneyInput) => Promise<void>;
  findJourneyEvents: (query: { userId: string; name: string; since: string; trigger?: WaitTrigger }) => Promise<UserEvent[]>;
  hasJourneyEvent: (query: { userId: string; name: string; since?: string; where?: PropertyCondition[] }) => Promise<boolean>;
  recipientTimeZone: (query: { userId: string }) => Promise<string>;
  sendJourneyEmail: (input: SendJourneyEmailInput) => Promise<SendJourneyEmailResult>;
}

type JourneyCallName = keyof JourneyRunCalls;
/** The calls that can be a run's first step, and so be made together with its entry. */
export type StepName = Exclude<JourneyCallName, 'enterJourney'>;

/** The activity that makes the entry with the run's first call, when that call is `K`. */
type EnteringFirstName<K extends StepName> = `enterJourneyWith${Capitalize<K>}`;

/**
 * How each call runs on Temporal (workflows/journey.ts): `mirror`, a state, log or history
 * statement (short timeout, long retry); `send`, one email (the send's timeout and retries).
 *
 * `enteringFirst`: the activity that makes the run's entry together with this call when it is the
 * run's first (docs/scaling.md, "One local activity fewer per run"), one per call with the call in
 * its name. A replay compares a local activity by its type only, so a journey change that makes
 * another call first is still caught as incompatible by the journeys check, as it was with the
 * entry on its own. These names are in recorded run histories: never rename one.
 */
export const journeyCalls = {
  enterJourney: { kind: 'mirror' },
  recordJourneyStep: { kind: 'mirror', enteringFirst: 'enterJourneyWithRecordJourneyStep' },
  finishJourneyRun: { kind: 'mirror', enteringFirst: 'enterJourneyWithFinishJourneyRun' },
  findJourneyEvents: { kind: 'mirror', enteringFirst: 'enterJourneyWithFindJourneyEvents' },
  hasJourneyEvent: { kind: 'mirror', enteringFirst: 'enterJourneyWithHasJourneyEvent' },
  recipientTimeZone: { kind: 'mirror', enteringFirst: 'enterJourneyWithRecipientTimeZone' },
  sendJourneyEmail: { kind: 'send', enteringFirst: 'enterJourneyWithSendJourneyEmail' },
} as const satisfies { [K in JourneyCallName]: { kind: 'mirror' | 'send' } & (K extends StepName ? { enteringFirst: EnteringFirstName<K> } : object) };

const journeyCallNames = Object.keys(journeyCalls) as JourneyCallName[];
export const stepNames = journeyCallNames.filter((name): name is StepName => name !== 'enterJourney');

export type EnteringFirstActivityName<K extends StepName> = (typeof journeyCalls)[K]['enteringFirst'];

export function enteringFirstActivityName<K extends StepName>(step: K): EnteringFirstActivityName<K> {
  return journeyCalls[step].enteringFirst;
}

/** Every activity a run can call: its calls, and each of them made together with the entry. */
export const journeyRunActivityNames: readonly string[] = [...journeyCallNames, ...stepNames.map(enteringFirstActivityName)];

/**
 * A full set of the run's calls, made call by call (`make` answers for one name), in the list's
 * order: a runtime's call map is one line, and a call added to the list is in every map.
 */
export function journeyCallsBy(make: <K extends JourneyCallName>(name: K) => JourneyRunCalls[K]): JourneyRunCalls {
  return Object.fromEntries(journeyCallNames.map((name) => [name, make(name)])) as unknown as JourneyRunCalls;
}
