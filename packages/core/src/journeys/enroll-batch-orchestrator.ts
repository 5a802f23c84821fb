import type { EnrollmentBatch } from './enroll-dispatch';

/**
 * The batch-enrollment side of the orchestrator port (orchestrator.ts is the journey side): what
 * core needs from the workflow engine to dispatch an accepted batch. Implemented in temporal/.
 */
export interface EnrollBatchOrchestrator {
  /** Starts the durable run that dispatches the batch's trigger events; one run per batch id. */
  startEnrollBatch(batch: EnrollmentBatch): Promise<void>;
}
