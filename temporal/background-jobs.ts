import { WorkflowIdReusePolicy, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { notFound } from '@waymark/core/errors/app-error';
import type { BackgroundJobKind, BackgroundJobRunStatus, BackgroundJobs } from '@waymark/core/jobs/background-jobs';
import { backgroundJobProgressQuery, backgroundJobRowChangedSignal } from './workflows/background-job';
import type * as workflows from './workflows/index';

/** How a kind runs: its workflow (exported from workflows/index.ts) and its workflow ids. */
interface BackgroundJobKindEntry {
  workflow: keyof typeof workflows;
  /** the run's workflow id; `${kind}-${id}` unless said */
  workflowId?: (id: string) => string;
  /** the workflow's arguments; `[id]` (the run reads its job row) unless said */
  args?: (id: string, input: unknown) => unknown[];
}

/**
 * The kinds of background job, one entry each (docs/contributing.md, "Adding a background job
 * kind"). Workflow ids keep the names runs already have, so a deploy does not orphan a running job.
 */
const kinds: Record<BackgroundJobKind, BackgroundJobKindEntry> = {
  'contact-import': { workflow: 'importContactsWorkflow' },
  'event-replay': { workflow: 'replayEventsWorkflow' },
  'journey-simulation': { workflow: 'journeySimulationWorkflow' },
  // id `${journeyId}:${batchId}`; the batch has no row, it is the run's input
  'enroll-batch': { workflow: 'enrollBatchWorkflow', workflowId: (id) => `enroll-batch:${id}`, args: (_id, batch) => [batch] },
  // the run reads the broadcast row; pause, resume and cancel change the row, then notify
  broadcast: { workflow: 'broadcastWorkflow' },
};

function workflowIdOf(kind: BackgroundJobKind, id: string): string {
  return kinds[kind].workflowId?.(id) ?? `${kind}-${id}`;
}

const runStatuses: Record<string, BackgroundJobRunStatus> = {
  RUNNING: 'running',
  CONTINUED_AS_NEW: 'running',
  COMPLETED: 'completed',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
  TERMINATED: 'terminated',
  TIMED_OUT: 'timed_out',
};

/** core's background-job port on a Temporal client: every kind through the table above. */
export function createTemporalBackgroundJobs(client: Client, taskQueue: string): BackgroundJobs {
  const handle = (kind: BackgroundJobKind, id: string) => client.workflow.getHandle(workflowIdOf(kind, id));
  return {
    async start(kind, id, input) {
      const entry = kinds[kind];
      await client.workflow.start(entry.workflow, {
        taskQueue,
        workflowId: workflowIdOf(kind, id),
        args: entry.args?.(id, input) ?? [id],
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      });
    },
    async status(kind, id) {
      try {
        const description = await handle(kind, id).describe();
        return runStatuses[description.status.name] ?? 'running';
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return 'not_found';
        throw error;
      }
    },
    async progress(kind, id) {
      try {
        return await handle(kind, id).query(backgroundJobProgressQuery);
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) throw notFound(`No ${kind} job ${id}`);
        throw error;
      }
    },
    async cancel(kind, id) {
      try {
        await handle(kind, id).cancel();
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) throw notFound(`No ${kind} job ${id}`);
        throw error;
      }
    },
    async notify(kind, id) {
      try {
        await handle(kind, id).signal(backgroundJobRowChangedSignal);
      } catch (error) {
        // finished or never started: it has nothing to read again
        if (error instanceof WorkflowNotFoundError) return;
        throw error;
      }
    },
  };
}
