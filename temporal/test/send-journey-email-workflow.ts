import { proxyActivities } from '@temporalio/workflow';
import type { SendJourneyEmailInput } from '@waymark/core/journeys/journey-email';
import type { SendJourneyEmailActivities } from '../activities/send-journey-email';

const { sendJourneyEmail } = proxyActivities<SendJourneyEmailActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '100 milliseconds', maximumInterval: '1 second', maximumAttempts: 5 },
});

/** Test-only workflow: journey email steps in order, with a fast retry policy (send-journey-email.int.test.ts). */
export async function sendJourneyEmailWorkflow(inputs: SendJourneyEmailInput[]) {
  const results = [];
  for (const input of inputs) results.push(await sendJourneyEmail(input));
  return results;
}
