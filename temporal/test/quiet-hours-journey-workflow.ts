import { proxyLocalActivities } from '@temporalio/workflow';
import { defineJourney, type QuietHours } from '@waymark/journey';
import type { JourneyRunRequest } from '@waymark/core/journeys/orchestrator';
import type { JourneyRunCalls } from '../journey-calls';
import { startJourneyRun, type JourneyRunOutcome } from '../workflows/journey-run';
import { temporalJourneyRuntime } from '../workflows/temporal-journey-runtime';

const mirror = proxyLocalActivities<JourneyRunCalls>({ startToCloseTimeout: '10 seconds', retry: { maximumInterval: '2 seconds' } });
const email = proxyLocalActivities<JourneyRunCalls>({ startToCloseTimeout: '30 seconds', retry: { maximumInterval: '2 seconds' } });

/**
 * A one-email journey with the quiet hours the test gives (the deployment's journeys set none), run
 * by the production runner (journey-run.ts) on Temporal with the real journey and send activities.
 */
export async function quietHoursJourneyWorkflow(input: { request: JourneyRunRequest; quietHours: QuietHours }): Promise<JourneyRunOutcome> {
  const journey = defineJourney({
    id: input.request.journeyId,
    name: 'Quiet hours test',
    description: 'one email, held by quiet hours',
    trigger: { event: input.request.trigger.event },
    quietHours: input.quietHours,
    run: async (ctx) => {
      await ctx.sendEmail('welcome', { data: { firstName: 'Ada' } });
    },
  });
  const run = startJourneyRun(temporalJourneyRuntime(mirror, email), journey, input.request);
  return run.outcome;
}
