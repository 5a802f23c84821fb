import { defineTypedJourney } from './define-typed-journey';

/**
 * A project just created: tips at once, a nudge two days later unless it was published. The goal
 * (publishing within 14 days) ends the run when met, so a person who published gets no nudge; a
 * fifth of the people are held out of both emails, so `GET /v1/admin/journeys/first-project/outcomes`
 * says whether the emails change how many publish (docs/journeys.md, "Goals, holdouts and lift").
 */
export default defineTypedJourney({
  id: 'first-project',
  name: 'First project',
  description: 'Helps people who created a project to publish it',
  trigger: { event: 'project.created' },
  category: 'journey',
  goal: { event: 'project.published', within: '14 days' },
  holdout: { percent: 20 },
  async run(ctx) {
    const projectName = ctx.trigger.properties.name ?? null;
    await ctx.sendEmail('first-project-tips', { data: { projectName } });
    await ctx.sleep('2 days');
    await ctx.sendEmail('first-project-nudge', { data: { projectName } });
  },
});
