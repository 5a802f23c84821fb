/**
 * The simulation side of the orchestrator PORT (orchestrator.ts is the journey side): what core
 * needs from the workflow engine to run a simulation job in the worker. Implemented in temporal/.
 */
export interface SimulationOrchestrator {
  /** Starts the background run of a stored job; one run per job id. */
  startSimulation(jobId: string): Promise<void>;
}
