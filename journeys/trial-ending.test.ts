import { testJourney } from '@waymark/journey-testing';
import { describe, expect, it } from 'vitest';
import { stripe } from '@waymark/sources/presets/stripe';
import { stripeSubscriptionTrialWillEnd } from '../packages/sources/test/provider-payloads';
import trialEnding from './trial-ending';

describe('trial-ending (a journey started by the Stripe preset)', () => {
  it('the preset turns trial_will_end into its trigger; the run reminds now and again two days later', async () => {
    // the event the Stripe preset makes of Stripe's payload is exactly what the journey waits for
    const ingest = stripe.transform(stripe.schema!.parse(stripeSubscriptionTrialWillEnd()), {})!;
    expect(ingest.event).toBe(trialEnding.trigger.event);

    const t = await testJourney(trialEnding, {
      user: { userId: ingest.userId!, email: 'ada@example.com' },
      trigger: { properties: { plan: 'pro_monthly', trial_end: 1_726_259_200 } },
    });
    expect(t.sent.map((send) => [send.templateKey, send.node])).toEqual([['trial-ending', 'trial-ending']]);
    await t.advance('2 days');
    expect(t.sent.map((send) => [send.templateKey, send.node])).toEqual([
      ['trial-ending', 'trial-ending'],
      ['trial-last-chance', 'last-day'],
    ]);
    expect(t.status).toBe('completed');
  });

  it('paying during the trial exits the run before the last reminder', async () => {
    const t = await testJourney(trialEnding, { trigger: { properties: { plan: 'pro_monthly', trial_end: 1_726_259_200 } } });
    await t.emit('stripe.invoice.paid', {});
    expect(t.status).toBe('exited');
    await t.advance('3 days');
    expect(t.sent.map((send) => send.templateKey)).toEqual(['trial-ending']);
  });

  it('exits on the preset events for payment and cancellation', () => {
    expect(trialEnding.exitOn.map((rule) => rule.event)).toEqual(['stripe.invoice.paid', 'stripe.customer.subscription.deleted']);
  });
});
