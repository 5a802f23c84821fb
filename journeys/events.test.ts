import { describe, expect, expectTypeOf, it } from 'vitest';
import { createJourneyRegistry } from '@waymark/core/journeys/registry';
import { defineJourney } from '@waymark/journey';
import { defineTypedJourney } from './define-typed-journey';
import { events } from './events';

/**
 * Type-level tests: `npm run typecheck` (part of `npm run check`) fails when a `@ts-expect-error`
 * below stops being an error, i.e. when the catalog no longer catches that mistake.
 */
const base = { name: 'Typed', description: 'type-level test journey' };

describe('typed journeys (event catalog → where → ctx → template props)', () => {
  it('types ctx.trigger.properties from the trigger event', () => {
    const journey = defineTypedJourney({
      ...base,
      id: 'typed-trigger',
      trigger: { event: 'trial.started' },
      async run(ctx) {
        expectTypeOf(ctx.trigger.properties.plan).toEqualTypeOf<'free' | 'pro' | 'team'>();
        // @ts-expect-error planName is not a property of trial.started
        void ctx.trigger.properties.planName;
      },
    });
    expect(journey.trigger.event).toBe('trial.started');
  });

  it('refuses unknown events, where keys and wrongly typed where values', () => {
    const journeys = [
      defineTypedJourney({
        ...base,
        id: 'typed-where',
        trigger: {
          event: 'trial.started',
          where: [
            { type: 'property', property: 'plan', operator: 'in', value: ['pro', 'team'] },
            // @ts-expect-error 'plann' is not a property of trial.started
            { type: 'property', property: 'plann', operator: 'eq', value: 'pro' },
            // @ts-expect-error 'enterprise' is not a plan
            { type: 'property', property: 'plan', operator: 'eq', value: 'enterprise' },
          ],
        },
        exitOn: [
          { event: 'subscription.updated', where: [{ type: 'property', property: 'status', operator: 'eq', value: 'active' }] },
          // @ts-expect-error daysInactive is a number
          { event: 'user.inactive', where: [{ type: 'property', property: 'daysInactive', operator: 'gte', value: '14' }] },
        ],
        async run() {},
      }),
    ];
    expect(journeys).toHaveLength(1);
    const misspelt = defineTypedJourney({
      ...base,
      id: 'typed-event',
      // @ts-expect-error user.signedup is not in the catalog
      trigger: { event: 'user.signedup' },
      async run() {},
    });
    // what the types catch, the api and the worker refuse at start-up (a plain-JS caller)
    expect(() => createJourneyRegistry([misspelt], { enabledJourneys: '*', events })).toThrow(/missing from the event catalog: user.signedup/);
    // a plain journey may name any event
    const plain = defineJourney({ ...base, id: 'plain-event', trigger: { event: 'user.signedup' }, async run() {} });
    expect(createJourneyRegistry([plain], { enabledJourneys: '*', events }).all()).toHaveLength(1);
  });

  it('checks ctx.sendEmail template keys and data against the template props', () => {
    defineTypedJourney({
      ...base,
      id: 'typed-send',
      trigger: { event: 'payment.failed' },
      async run(ctx) {
        await ctx.sendEmail('payment-failed', { data: { amount: ctx.trigger.properties.amount ?? null } });
        // @ts-expect-error no template has this key
        await ctx.sendEmail('payment-failed-v2');
        // @ts-expect-error amount is text, not a number
        await ctx.sendEmail('payment-failed', { data: { amount: 49 } });
        // @ts-expect-error payment-failed has no prop `total`
        await ctx.sendEmail('payment-failed', { data: { total: '$49.00' } });
      },
    });
  });

  it('checks catalogued event properties at runtime, naming the failing path', () => {
    expect(events.check('trial.started', { plan: 'pro' })).toEqual({ ok: true });
    expect(events.check('trial.started', { plan: 'enterprise' })).toMatchObject({ ok: false, path: 'plan' });
    expect(events.check('user.inactive', { daysInactive: '30' })).toEqual({ ok: true });
    expect(events.check('page.viewed', { anything: { nested: true } })).toEqual({ ok: true });
    expect(events.jsonSchema('trial.started')).toMatchObject({ type: 'object', properties: { plan: { enum: ['free', 'pro', 'team'] } } });
  });
});
