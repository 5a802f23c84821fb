import { catalogPropertySamples, traceJourney } from '@waymark/journey';
import { journeys } from '@waymark/journeys';
import { events } from '@waymark/journeys/events';
import { journeyMermaid } from './journey-mermaid';

/**
 * `waymark journeys map <id>`: the working tree's journey traced from its code and printed as
 * Mermaid on stdout. It reads no database and no setting, so it runs in CI on a pull request.
 * Exit 2: no such journey; 1: the journey cannot be traced (the reason on stderr).
 */
export async function printJourneyMap(id: string): Promise<number> {
  const journey = journeys.find((candidate) => candidate.id === id);
  if (journey === undefined) {
    console.error(`journeys map: no journey '${id}' (known: ${journeys.map((known) => known.id).join(', ')})`);
    return 2;
  }
  const map = await traceJourney(journey, catalogPropertySamples(events.jsonSchema(journey.trigger.event)));
  if (!map.traced) {
    console.error(`journeys map: ${map.reason}`);
    return 1;
  }
  process.stdout.write(journeyMermaid(`${journey.name} (${journey.id})`, map.nodes, map.edges));
  return 0;
}
