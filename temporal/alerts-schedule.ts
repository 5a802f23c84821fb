import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';

/** One schedule per task queue, so deployments sharing a namespace do not collide. */
export function alertScheduleId(taskQueue: string): string {
  return `alert-evaluation-${taskQueue}`;
}

/**
 * Creates the every-minute alert evaluation schedule if it does not exist (idempotent; safe
 * for every worker to call at start). Missed minutes are not caught up: an alert about the
 * last hour is only useful now, and overlapping runs are skipped.
 */
export async function ensureAlertSchedule(client: Client, taskQueue: string): Promise<'created' | 'exists'> {
  try {
    await client.schedule.create({
      scheduleId: alertScheduleId(taskQueue),
      spec: { intervals: [{ every: '1 minute' }] },
      action: {
        type: 'startWorkflow',
        workflowType: 'alertEvaluationWorkflow',
        taskQueue,
        args: [],
        workflowExecutionTimeout: '5 minutes',
      },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
    });
    return 'created';
  } catch (error) {
    if (error instanceof ScheduleAlreadyRunning) return 'exists';
    throw error;
  }
}
