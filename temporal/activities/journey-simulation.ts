import { Context } from '@temporalio/activity';
import type { Db } from '@waymark/core/db/database';
import type { JourneyRegistry } from '@waymark/core/journeys/registry';
import { runSimulation, type JourneySimulator } from '@waymark/core/journeys/simulation';
import { claimSimulationJob, completeSimulationJob, failSimulationJob, recordSimulationProgress } from '@waymark/core/journeys/simulation-jobs';

export interface SimulationActivityDeps {
  db: Db;
  journeys: JourneyRegistry;
  /** the replay engine (simulation/simulate.ts's simulateJourney, passed in by the worker app) */
  simulate: JourneySimulator;
}

/** Progress rows are written at most this often; heartbeats go with every progress report. */
const PROGRESS_EVERY_MS = 1_000;

/** Simulation jobs: the replay runs in the worker process and writes only its job row. */
export function createSimulationActivities(deps: SimulationActivityDeps) {
  return {
    async runSimulationJob(jobId: string): Promise<void> {
      const job = await claimSimulationJob(deps.db, jobId);
      const journey = deps.journeys.get(job.journeyId);
      let written = 0;
      const pending: Promise<void>[] = [];
      const result = await runSimulation(deps.db, deps.simulate, {
        journey,
        window: job.window,
        limit: job.limit,
        onProgress: (processed, total) => {
          Context.current().heartbeat({ processed, total });
          if (processed < total && Date.now() - written < PROGRESS_EVERY_MS) return;
          written = Date.now();
          pending.push(recordSimulationProgress(deps.db, jobId, { processed, total }));
        },
      });
      await Promise.all(pending);
      await completeSimulationJob(deps.db, jobId, result);
    },

    async failSimulationJob(input: { jobId: string; error: string }): Promise<void> {
      await failSimulationJob(deps.db, input.jobId, input.error);
    },
  };
}

export type SimulationActivities = ReturnType<typeof createSimulationActivities>;
