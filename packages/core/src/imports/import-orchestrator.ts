/**
 * The import side of the orchestrator PORT (journeys/orchestrator.ts is the journey side): what
 * core needs from the workflow engine to run an import. Implemented in temporal/ (core never
 * imports Temporal).
 */
export interface ImportOrchestrator {
  /** Starts the durable run of a stored job; one run per job id. */
  startImport(jobId: string): Promise<void>;
}
