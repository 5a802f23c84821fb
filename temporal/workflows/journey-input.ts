import type { JourneyRunRequest } from '@waymark/core/journeys/orchestrator';

/**
 * A journey workflow's input: the run request plus how the run executes its steps, fixed when it
 * starts (input is part of the history, so every replay decides the same way).
 * - `steps: 'local'` (every run started now): the mirror writes and the sends are local
 *   activities, so a run reaches its first timer in one workflow task.
 * - absent (runs started before): they replay as they began; the patch marker
 *   `journey-mirror-local-activities` tells the ones with local mirror writes and sends as activity
 *   tasks from the older ones with activity tasks throughout.
 * Input rather than a patch marker because a marker makes the SDK update a search attribute too: a
 * visibility write that was about a quarter of the Temporal server's work per run (bench/HISTORY.md).
 * - `entry: 'with-first-step'` (every run started now): the entry goes with the run's first call,
 *   one local activity fewer (journey-run.ts); absent, the entry is a call of its own.
 * - `arms: 'assign'` (every run started now): a journey with a goal or a holdout records the
 *   person's arm and holds out the held-out person's emails; a run begun before keeps sending.
 * Upgrade workers before the processes that start runs: an older worker ignores the fields.
 */
export interface JourneyWorkflowInput extends JourneyRunRequest {
  steps?: 'local';
  entry?: 'with-first-step';
  /** `assign` (every run started now): the run draws its person's arm (journey-run.ts); absent, it has none */
  arms?: 'assign';
}

/** What every starter of a journey run passes as the workflow's argument. */
export function journeyWorkflowInput(request: JourneyRunRequest): JourneyWorkflowInput {
  return { ...request, steps: 'local', entry: 'with-first-step', arms: 'assign' };
}
