import { defineTypedJourney } from './define-typed-journey';

/** Onboarding: a welcome, then after two days either a getting-started nudge or power-user tips. */
export default defineTypedJourney({
  id: 'welcome-series',
  name: 'Welcome series',
  description: 'Welcomes new sign-ups and nudges them to create their first project',
  trigger: { event: 'user.signed_up' },
  entryLimit: 'once',
  exitOn: [{ event: 'user.deleted' }],
  async run(ctx) {
    await ctx.sendEmail('welcome', { data: { firstName: ctx.trigger.properties.firstName ?? null } });
    await ctx.sleep('2 days');
    if (await ctx.history.hasEvent('project.created', { since: 'entry' })) {
      await ctx.sendEmail('welcome-tips', { node: 'tips' });
    } else {
      await ctx.sendEmail('welcome-getting-started', { node: 'nudge' });
    }
  },
});
