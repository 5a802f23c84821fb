import { describe, expect, it } from 'vitest';
import { defineJourney, type JourneyDefinition } from './define-journey';
import type { JourneyMap } from './journey-map';
import { catalogPropertySamples, traceJourney } from './trace-journey';

const journey = (run: JourneyDefinition['run'], extra: Partial<JourneyDefinition> = {}) =>
  defineJourney({ id: 'traced', name: 'Traced', description: '', trigger: { event: 'thing.happened' }, run, ...extra });

/** The map as `from -label-> to` lines: what the tests compare. */
function arrows(map: JourneyMap): string[] {
  if (!map.traced) throw new Error(map.reason);
  return map.edges.map((edge) => `${edge.from} -${edge.label ?? ''}${edge.anyTime ? '(any time)' : ''}-> ${edge.to}`);
}

describe('traceJourney', () => {
  it('draws every step of a straight journey, with the ids runs store, and the exit rules', async () => {
    const map = await traceJourney(
      journey(
        async (ctx) => {
          await ctx.sendEmail('hello');
          await ctx.sleep('2 days');
          await ctx.sleepUntilLocal('09:00', { weekdays: ['mon'] });
          await ctx.sendEmail('hello', { node: 'again' });
        },
        { exitOn: [{ event: 'user.deleted', where: [{ type: 'property', property: 'hard', operator: 'eq', value: true }] }] },
      ),
    );
    expect(arrows(map)).toEqual([
      'trigger --> hello',
      'hello --> sleep:2 days',
      'sleep:2 days --> sleep-until:09:00',
      'sleep-until:09:00 --> again',
      'again --> end',
      'trigger -any time(any time)-> exit',
    ]);
    expect(map.traced && map.nodes.find((node) => node.id === 'exit')?.label).toBe('Exit on user.deleted where hard eq true');
    expect(map.traced && map.nodes.find((node) => node.id === 'again')).toMatchObject({ kind: 'email', nodeId: 'again', templateKey: 'hello' });
  });

  it('draws the goal beside the exit, reachable at any time after the trigger', async () => {
    const withGoal = { ...journey(async (ctx) => void (await ctx.sendEmail('tips'))), goal: { event: 'project.published', within: '14 days' } };
    const map = await traceJourney(withGoal);
    expect(arrows(map)).toEqual(['trigger --> tips', 'tips --> end', 'trigger -any time(any time)-> goal']);
    expect(map.traced && map.nodes.find((node) => node.id === 'goal')).toMatchObject({ kind: 'goal', label: 'Goal: project.published within 14 days' });
  });

  it('follows both outcomes of a wait and of a history check, joining paths that meet again', async () => {
    const map = await traceJourney(
      journey(async (ctx) => {
        const got = await ctx.waitForEvent('paid', { timeout: '3 days' });
        if (got) await ctx.sendEmail('thanks');
        else if (await ctx.history.hasEvent('visited', { since: 'entry' })) await ctx.sendEmail('come-back');
        await ctx.node('done');
      }),
    );
    expect(arrows(map).sort()).toEqual(
      [
        'trigger --> wait:paid',
        'wait:paid -got paid-> thanks',
        'thanks --> done',
        'wait:paid -after 3 days-> has?Has visited since entry?',
        'has?Has visited since entry? -yes-> come-back',
        'come-back --> done',
        'has?Has visited since entry? -no-> done',
        'done --> end',
      ].sort(),
    );
  });

  it('makes a send outcome a branch only when the journey reads it', async () => {
    const map = await traceJourney(
      journey(async (ctx) => {
        const sent = await ctx.sendEmail('first');
        if (sent.status !== 'sent') await ctx.sendEmail('fallback');
      }),
    );
    expect(arrows(map).sort()).toEqual(
      ['trigger --> first', 'first --> sent?first', 'sent?first -sent-> end', 'sent?first -skipped or failed-> fallback', 'fallback --> end'].sort(),
    );
  });

  it('says why a journey cannot be traced: a branch on data, a throw, a loop, an await of something else', async () => {
    const onData = journey(async (ctx) => {
      if (ctx.trigger.properties.plan === 'pro') await ctx.sendEmail('pro-tips');
    });
    expect(await traceJourney(onData)).toMatchObject({ traced: true });
    const samples = catalogPropertySamples({ type: 'object', properties: { plan: { enum: ['free', 'pro'] }, name: { type: 'string' } } });
    expect(samples).toEqual([{ plan: 'free' }, { plan: 'pro' }]);
    expect(await traceJourney(onData, samples)).toEqual({
      traced: false,
      reason: `traced cannot be traced: its steps depend on the trigger's properties ({"plan":"pro"} takes other steps), which a map cannot enumerate`,
    });
    const throws = await traceJourney(
      journey(async (ctx) => {
        await ctx.sendEmail(String((ctx.trigger.properties.name as string).toUpperCase()));
      }),
    );
    expect(throws).toMatchObject({ traced: false, reason: expect.stringContaining('its run threw on a path') });
    const loop = await traceJourney(
      journey(async (ctx) => {
        while (!(await ctx.waitForEvent('paid', { timeout: '1 day' }))) await ctx.sendEmail('reminder');
      }),
    );
    expect(loop).toMatchObject({ traced: false, reason: expect.stringMatching(/more than 100 steps|more than 256 paths/) });
    const waits = await traceJourney(journey(() => new Promise<void>(() => {})));
    expect(waits).toMatchObject({ traced: false, reason: expect.stringContaining('awaits something other than ctx') });
  });
});
