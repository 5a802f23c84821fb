import { defineEvents, uncataloguedEvents, validateJourney, type EventCatalog, type Journey } from '@waymark/journey';
import type { PreferenceCategories } from '@waymark/email/preference-categories';
import { notFound } from '../errors/app-error';

/**
 * The journeys this process knows, indexed by id, by trigger event and by exitOn event (O(1)
 * lookups per ingested event). `codeEnabled` is the code default combined with ENABLED_JOURNEYS; the admin
 * override (journey_overrides) takes precedence over it (see effective-enabled.ts).
 */
export interface JourneyRegistry {
  all(): readonly Journey[];
  find(id: string): Journey | undefined;
  get(id: string): Journey;
  triggeredBy(event: string): readonly Journey[];
  /** journeys with an exitOn rule for this event name */
  exitedBy(event: string): readonly Journey[];
  /** journeys whose goal is this event name */
  convertedBy(event: string): readonly Journey[];
  codeEnabled(id: string): boolean;
  /** the journey's version in this process's code (docs/journeys.md, "Changing a live journey"); null when not known */
  version(id: string): string | null;
  /** the deployment's event catalog (journeys/events.ts): ingest checks catalogued events against it */
  events: EventCatalog;
}

export function parseEnabledJourneys(value: string): '*' | Set<string> {
  const ids = value
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id.length > 0);
  if (ids.length === 0 || ids.includes('*')) return '*';
  return new Set(ids);
}

export function createJourneyRegistry(
  journeys: readonly Journey[],
  options: {
    enabledJourneys: string;
    events?: EventCatalog;
    /** the deployment's preference categories (journeys/categories.ts): a journey's `category` must be one */
    categories?: PreferenceCategories;
    versions?: ReadonlyMap<string, string>;
  },
): JourneyRegistry {
  const byId = new Map<string, Journey>();
  const byTrigger = new Map<string, Journey[]>();
  const byExitEvent = new Map<string, Journey[]>();
  const byGoal = new Map<string, Journey[]>();
  for (const journey of journeys) {
    const problems = validateJourney(journey);
    if (problems.length > 0) throw new Error(`Invalid journey '${journey.id}': ${problems.join('; ')}`);
    if (byId.has(journey.id)) throw new Error(`Duplicate journey id '${journey.id}' in journeys/index.ts`);
    const uncatalogued = options.events === undefined ? [] : uncataloguedEvents(journey, options.events);
    if (uncatalogued.length > 0) throw new Error(`Journey '${journey.id}' names events missing from the event catalog: ${uncatalogued.join(', ')}`);
    if (journey.category !== undefined && options.categories !== undefined && options.categories.find(journey.category) === undefined) {
      const known = options.categories.all().map((category) => category.key);
      throw new Error(
        `Journey '${journey.id}' names an unknown preference category '${journey.category}' (known: ${known.join(', ')}; journeys/categories.ts)`,
      );
    }
    byId.set(journey.id, journey);
    byTrigger.set(journey.trigger.event, [...(byTrigger.get(journey.trigger.event) ?? []), journey]);
    for (const event of new Set((journey.exitOn ?? []).map((rule) => rule.event))) byExitEvent.set(event, [...(byExitEvent.get(event) ?? []), journey]);
    if (journey.goal !== undefined) byGoal.set(journey.goal.event, [...(byGoal.get(journey.goal.event) ?? []), journey]);
  }
  const enabled = parseEnabledJourneys(options.enabledJourneys);
  if (enabled !== '*') {
    const unknown = [...enabled].filter((id) => !byId.has(id));
    if (unknown.length > 0) throw new Error(`ENABLED_JOURNEYS names unknown journeys: ${unknown.join(', ')} (known: ${[...byId.keys()].join(', ')})`);
  }
  const sorted = [...byId.values()].sort((a, b) => a.id.localeCompare(b.id));
  return {
    all: () => sorted,
    find: (id) => byId.get(id),
    get(id) {
      const journey = byId.get(id);
      if (journey === undefined) throw notFound('Journey not found');
      return journey;
    },
    triggeredBy: (event) => byTrigger.get(event) ?? [],
    exitedBy: (event) => byExitEvent.get(event) ?? [],
    convertedBy: (event) => byGoal.get(event) ?? [],
    codeEnabled(id) {
      const journey = byId.get(id);
      return journey !== undefined && journey.enabled && (enabled === '*' || enabled.has(id));
    },
    version: (id) => options.versions?.get(id) ?? null,
    events: options.events ?? defineEvents({}),
  };
}
