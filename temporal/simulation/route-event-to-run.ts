import { matchesExitRule } from '@waymark/core/events/exit-rule';
import { createJourneyRegistry } from '@waymark/core/journeys/registry';
import type { Journey } from '@waymark/journey';
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
 * The kit's two modes and `simulateJourney` share it, so they route as production does.
 */
export function routeEventToRun(journey: Journey, run: FakeRun, workflowId: string, event: StoredEvent): EventRoute {
  if (!run.live) return undefined;
  if (exitsRun(journey, event)) {
    run.exitBy(event);
    return 'cancel';
  }
  return run.waitingFor === event.name ? 'deliver' : undefined;
}
