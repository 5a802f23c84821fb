import { Context } from '@temporalio/activity';
import type { Db } from '@waymark/core/db/database';
import type { IngestInput, IngestResult } from '@waymark/core/events/ingest';
import { batchUsersBetween, dropBatchUsers } from '@waymark/core/journeys/enroll-batch-users';
import { dispatchEnrollments, type EnrollmentBatch, type EnrollmentChunk } from '@waymark/core/journeys/enroll-dispatch';

export interface EnrollBatchActivityDeps {
  db: Db;
  ingest(input: IngestInput): Promise<IngestResult>;
}

/** Positions [from, to) of a batch's rows: one chunk. */
export type EnrollmentRange = Omit<EnrollmentBatch, 'total'> & { from: number; to: number };

export function createEnrollBatchActivities(deps: EnrollBatchActivityDeps) {
  return {
    /**
     * One chunk of a batch enrollment, read from its rows (an erased person's is gone); heartbeats
     * per user so a dead worker is noticed in seconds. The rows go once every user's event is
     * stored: a retried chunk finds them again, and the events' idempotency keys store each once.
     */
    async dispatchEnrollmentRange(range: EnrollmentRange): Promise<void> {
      const context = Context.current();
      const { from, to, ...batch } = range;
      const users = await batchUsersBetween(deps.db, batch.batchId, from, to);
      await dispatchEnrollments(deps.ingest, { ...batch, users }, () => context.heartbeat());
      await dropBatchUsers(deps.db, batch.batchId, { from, to });
    },
    /** A cancelled batch's users not yet dispatched. */
    async dropEnrollmentBatch(batchId: string): Promise<void> {
      await dropBatchUsers(deps.db, batchId);
    },
    /**
     * One chunk with its users in the run's input: runs started before the users were kept in
     * PostgreSQL (migration 0300) still schedule it, so it stays registered until none is left.
     */
    async dispatchEnrollmentChunk(chunk: EnrollmentChunk): Promise<void> {
      const context = Context.current();
      await dispatchEnrollments(deps.ingest, chunk, () => context.heartbeat());
    },
  };
}

export type EnrollBatchActivities = ReturnType<typeof createEnrollBatchActivities>;
