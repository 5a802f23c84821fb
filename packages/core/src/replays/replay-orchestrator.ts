/**
 * The replay side of the orchestrator port (journeys/orchestrator.ts, imports/import-orchestrator.ts):
 * what core needs from the workflow engine to run a background replay. Implemented in temporal/.
 */
export interface ReplayOrchestrator {
  /** Starts the durable run of a stored replay job; one run per job id. */
  startReplay(jobId: string): Promise<void>;
}
