import { defineTypedJourney } from './define-typed-journey';

/**
 * Dunning: a failed payment gets a notice, and a last notice a week later unless the subscription
 * is active again. The exit rule reads the event's properties: only `subscription.updated` with
 * `status` = active ends the run (a change to another status, such as past_due, does not).
 */
export default defineTypedJourney({
  id: 'payment-recovery',
  name: 'Payment recovery',
  description: 'Asks customers whose payment failed to update their card, until the subscription is active again',
  trigger: { event: 'payment.failed' },
  entryLimit: 'unlimited',
  exitOn: [{ event: 'subscription.updated', where: [{ type: 'property', property: 'status', operator: 'eq', value: 'active' }] }],
  async run(ctx) {
    await ctx.sendEmail('payment-failed', { data: { amount: ctx.trigger.properties.amount ?? null } });
    await ctx.sleep('7 days', { node: 'grace-period' });
    await ctx.sendEmail('payment-final-notice', { node: 'final-notice' });
  },
});
