import { defineTypedJourney } from './define-typed-journey';

/** Win-back: users inactive for two weeks or more get one nudge, then a welcome back or a last call. */
export default defineTypedJourney({
  id: 're-engagement',
  name: 'Re-engagement',
  description: 'Brings back users who have been inactive for 14 days or more',
  trigger: { event: 'user.inactive', where: [{ type: 'property', property: 'daysInactive', operator: 'gte', value: 14 }] },
  entryLimit: 'unlimited',
  exitOn: [
    { event: 'user.deleted' },
    { event: 'subscription.cancelled', where: [{ type: 'property', property: 'reason', operator: 'eq', value: 'account_closed' }] },
  ],
  suppress: { hours: 48 },
  async run(ctx) {
    await ctx.sendEmail('reengage-we-miss-you', { data: { daysInactive: ctx.trigger.properties.daysInactive } });
    const back = await ctx.waitForEvent('session.started', { timeout: '7 days' });
    if (back) {
      await ctx.sendEmail('reengage-welcome-back');
      return;
    }
    await ctx.node('last-call');
    await ctx.sendEmail('reengage-last-call', { node: 'last-call-email' });
  },
});
