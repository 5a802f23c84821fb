import { eventPassesWhere } from '@waymark/journey';
import type { JourneyRegistry } from '../journeys/registry';

/**
 * Ingest step 3 (exit check): the event's name matches one of the state's journey exitOn rules and
 * its `where` passes. Apart from the routing module so the journey test kit applies the same rule
 * without loading the database layer.
 */
export function matchesExitRule(
  deps: { journeys: Pick<JourneyRegistry, 'find'> },
  state: { journeyId: string },
  event: { name: string; eventProperties: Record<string, unknown> },
): boolean {
  return (deps.journeys.find(state.journeyId)?.exitOn ?? []).some(
    (rule) => rule.event === event.name && eventPassesWhere(event.name, rule.where, event.eventProperties),
  );
}
