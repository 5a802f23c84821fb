import { defineJourney } from '@waymark/journey';

/**
 * Starts from the Stripe preset (docs/sources.md#stripe): Stripe sends
 * `customer.subscription.trial_will_end` three days before a trial ends. Remind at once, then
 * the day before; paying (the first invoice) or cancelling ends the journey early.
 */
export default defineJourney({
  id: 'trial-ending',
  name: 'Trial ending (Stripe)',
  description: 'Reminds a Stripe trial subscriber before the trial ends, until they pay or cancel',
  trigger: { event: 'stripe.customer.subscription.trial_will_end' },
  exitOn: [{ event: 'stripe.invoice.paid' }, { event: 'stripe.customer.subscription.deleted' }],
  async run(ctx) {
    const { plan, trial_end: trialEnd } = ctx.trigger.properties;
    await ctx.sendEmail('trial-ending', { data: { plan, trialEnd } });
    await ctx.sleep('2 days');
    await ctx.sendEmail('trial-last-chance', { node: 'last-day', data: { plan, daysLeft: 1 } });
  },
});
