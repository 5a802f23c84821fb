import type { JourneyRegistry } from './registry';

export interface CatalogEntry {
  name: string;
  /** the properties schema, as JSON Schema */
  schema: Record<string, unknown>;
  /** ids of the journeys this event starts */
  triggers: string[];
  /** ids of the journeys with an exitOn rule for this event */
  exits: string[];
}

/** The event catalog as the admin plane shows it: each event's schema and the journeys it starts or ends. */
export function describeEventCatalog(journeys: Pick<JourneyRegistry, 'events' | 'triggeredBy' | 'exitedBy'>): CatalogEntry[] {
  return journeys.events
    .names()
    .sort()
    .map((name) => ({
      name,
      schema: journeys.events.jsonSchema(name) ?? {},
      triggers: journeys
        .triggeredBy(name)
        .map((journey) => journey.id)
        .sort(),
      exits: journeys
        .exitedBy(name)
        .map((journey) => journey.id)
        .sort(),
    }));
}
