import { catalogPropertySamples, traceJourney, type JourneyMap } from '@waymark/journey';
import { describe, expect, it } from 'vitest';
import { events } from './events';
import { journeys } from './index';

const arrows = (map: JourneyMap) => (map.traced ? map.edges.map((edge) => `${edge.from} -${edge.label ?? ''}-> ${edge.to}`) : [map.reason]);

/** Every shipped journey can be drawn (docs/journeys.md, "Journey map"), and the drawings say what the code does. */
describe('the shipped journeys’ maps', () => {
  it.each(journeys.map((journey) => [journey.id, journey] as const))('%s traces over every branch and every catalogued sample', async (_id, journey) => {
    const map = await traceJourney(journey, catalogPropertySamples(events.jsonSchema(journey.trigger.event)));
    expect(map).toMatchObject({ traced: true });
  });

  it('welcome-series: a welcome, two days, then tips or the nudge', async () => {
    const map = await traceJourney(journeys.find((journey) => journey.id === 'welcome-series')!);
    expect(arrows(map)).toEqual([
      'trigger --> welcome',
      'welcome --> sleep:2 days',
      'sleep:2 days --> has?Has project.created since entry?',
      'has?Has project.created since entry? -yes-> tips',
      'tips --> end',
      'has?Has project.created since entry? -no-> nudge',
      'nudge --> end',
      'trigger -any time-> exit',
    ]);
  });

  it('re-engagement: the wait for a session, and the named last-call step', async () => {
    const map = await traceJourney(journeys.find((journey) => journey.id === 're-engagement')!);
    expect(arrows(map)).toEqual([
      'trigger --> reengage-we-miss-you',
      'reengage-we-miss-you --> wait:session.started',
      'wait:session.started -got session.started-> reengage-welcome-back',
      'reengage-welcome-back --> end',
      'wait:session.started -after 7 days-> last-call',
      'last-call --> last-call-email',
      'last-call-email --> end',
      'trigger -any time-> exit',
    ]);
  });
});
