import { defineTypedJourney } from './define-typed-journey';

/** Paid-plan trials: welcome, then push towards pricing; leaves as soon as the user subscribes. */
export default defineTypedJourney({
  id: 'trial-conversion',
  name: 'Trial conversion',
  description: 'Nudges pro and team trial users until they subscribe',
  trigger: { event: 'trial.started', where: [{ type: 'property', property: 'plan', operator: 'in', value: ['pro', 'team'] }] },
  entryLimit: 'once',
  exitOn: [{ event: 'subscription.started' }],
  suppress: { hours: 24 },
  async run(ctx) {
    const plan = ctx.trigger.properties.plan;
    await ctx.sendEmail('trial-welcome', { data: { plan } });
    await ctx.sleep('3 days');
    const viewed = await ctx.waitForEvent('pricing.viewed', { timeout: '4 days', node: 'wait-pricing' });
    if (viewed) {
      await ctx.sendEmail('trial-pricing-followup', { data: { plan } });
    } else {
      await ctx.sendEmail('trial-last-chance', { data: { plan } });
    }
  },
});
