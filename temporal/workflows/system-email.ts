import { proxyActivities } from '@temporalio/workflow';
import type { SystemEmailActivities, SystemEmailWorkflowInput } from '../activities/system-email';

const { sendSystemEmail } = proxyActivities<SystemEmailActivities>({
  startToCloseTimeout: '1 minute',
  // a reset link lives 15 minutes, an invitation 7 days: after a day the email is pointless
  scheduleToCloseTimeout: '1 day',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', nonRetryableErrorTypes: ['SystemEmailRefused'] },
});

/**
 * One system email (a reset link, an invitation), run `system-email:<idempotency key>`
 * (system-email-workflow-id.ts): one activity over the normal send path, retried by Temporal
 * through api and worker restarts, exactly once per key like every other send.
 */
export async function systemEmailWorkflow(input: SystemEmailWorkflowInput): Promise<string> {
  return sendSystemEmail(input);
}
