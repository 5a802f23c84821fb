import { isGrpcServiceError, WorkflowNotFoundError } from '@temporalio/client';

const GRPC_NOT_FOUND = 5;

/**
 * Temporal no longer has (or never had) this run's history: a database row can outlive it
 * (namespace retention, a run started on another cluster), and one such run must not stop a
 * command that reads many.
 */
export const isHistoryNotFound = (error: unknown): boolean =>
  error instanceof WorkflowNotFoundError || (isGrpcServiceError(error) && error.code === GRPC_NOT_FOUND);
