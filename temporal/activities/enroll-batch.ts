import { Context } from '@temporalio/activity';
import type { IngestInput, IngestResult } from '@waymark/core/events/ingest';
import { dispatchEnrollments, type EnrollmentBatch } from '@waymark/core/journeys/enroll-dispatch';

export interface EnrollBatchActivityDeps {
  ingest(input: IngestInput): Promise<IngestResult>;
}

export function createEnrollBatchActivities(deps: EnrollBatchActivityDeps) {
  return {
    /** One chunk of a batch enrollment; heartbeats per user so a dead worker is noticed in seconds. */
    async dispatchEnrollmentChunk(chunk: EnrollmentBatch): Promise<void> {
      const context = Context.current();
      await dispatchEnrollments(deps.ingest, chunk, () => context.heartbeat());
    },
  };
}

export type EnrollBatchActivities = ReturnType<typeof createEnrollBatchActivities>;
