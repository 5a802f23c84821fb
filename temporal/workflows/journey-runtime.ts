import type { EnterJourneyWith } from '../entry-with-first-step';
import type { JourneyRunCalls } from '../journey-calls';

/**
 * What the journey runner needs from the engine under it. In production this is Temporal
 * (journey.ts); `waymark simulate` runs the same runner on a virtual clock in one process
 * (temporal/simulation/virtual-runtime.ts), so there is one implementation of journey rules.
 */
export interface JourneyRuntime {
  workflowId: string;
  runId: string;
  /** the run's clock (workflow time), in ms since the epoch */
  now(): number;
  calls: JourneyRunCalls;
  /** a durable timer; rejects with a cancellation when the run is cancelled */
  sleep(ms: number): Promise<void>;
  /** resolves true once `test()` holds, false after `timeoutMs`; rejects on cancellation */
  condition(test: () => boolean, timeoutMs: number): Promise<boolean>;
  /**
   * Runs a write so that a cancellation arriving meanwhile lets it finish and surfaces at the next
   * timer or wait instead of abandoning an activity that may already have written.
   */
  shielded<T>(call: () => Promise<T>): Promise<T>;
  /** the run was cancelled (an exit rule or an admin), even if no timer has noticed yet */
  cancelled(): boolean;
  /**
   * When present, the run makes its entry together with its first call, under the state id given
   * here (journey-run.ts); otherwise with a call of its own before the journey body starts.
   */
  entryWithFirstStep?: { stateId: string; enterWith: EnterJourneyWith };
}
