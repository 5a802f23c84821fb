import { matchesExitRule } from '@waymark/core/events/exit-rule';
import { createJourneyRegistry } from '@waymark/core/journeys/registry';
import { durationMs, eventPassesWhere, goalValue, type Journey } from '@waymark/journey';
import type { FakeRun, StoredEvent } from './fake-world';

/** What the engine under a run must do with a user's event once it is routed. */
export type EventRoute = 'cancel' | 'deliver' | undefined;

/** core's exit check reads the journey from a registry; one per journey, built on first use */
const registries = new WeakMap<Journey, Parameters<typeof matchesExitRule>[0]>();

/** core's exit check (`matchesExitRule`) of `journey` for `event`: the fake run's entry applies it too. */
export function exitsRun(journey: Journey, event: StoredEvent): boolean {
  let exitRules = registries.get(journey);
  if (exitRules === undefined) registries.set(journey, (exitRules = { journeys: createJourneyRegistry([journey], { enabledJourneys: '*' }) }));
  return matchesExitRule(exitRules, { journeyId: journey.id }, { name: event.name, eventProperties: event.properties });
}

/**
 * The ingest pipeline's routing of a user's new event to one of their runs, with core's own exit
 * check: a matching `exitOn` rule marks the state `exited` at once (the engine then cancels the
 * run), else a run waiting for that event receives it (the engine signals it); otherwise nothing.
 * Before that, the goal: its event within its window of the entry converts the enrollment, live
 * or ended (and exits a live run unless `exitOnGoal` is false).
 * The kit's two modes and `simulateJourney` share it, so they route as production does.
 */
export function routeEventToRun(journey: Journey, run: FakeRun, workflowId: string, event: StoredEvent): EventRoute {
  if (convertsRun(journey, run, event)) {
    run.convertBy(event, goalValue(journey.goal!, event.properties));
    // exitOnGoal (default true): the ingest statement exits the live run with the conversion
    if (run.live && journey.exitOnGoal !== false) {
      run.exitBy(event, 'goal');
      return 'cancel';
    }
  }
  if (!run.live) return undefined;
  if (exitsRun(journey, event)) {
    run.exitBy(event);
    return 'cancel';
  }
  return run.waitingFor === event.name ? 'deliver' : undefined;
}

/** The event meets the journey's goal for this enrollment: its name and `where`, within the window, not yet converted. */
function convertsRun(journey: Journey, run: FakeRun, event: StoredEvent): boolean {
  const goal = journey.goal;
  if (goal === undefined || run.converted !== undefined || run.enteredAt === undefined || event.name !== goal.event) return false;
  if (event.occurredAt.getTime() - run.enteredAt.getTime() > durationMs(goal.within)) return false;
  return eventPassesWhere(event.name, goal.where, event.properties);
}
