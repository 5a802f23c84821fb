import { z } from 'zod';
import { simulationResultSchema } from '@waymark/core/journeys/simulation';
import { getSimulationJob, startSimulationJob, type SimulationJob } from '@waymark/core/journeys/simulation-jobs';
import type { AppDeps } from '../../deps';
import type { RoutePlugin } from '../../http/type-provider';
import { bearerErrors, errorBody, nullableTimestamp, timestamp } from '../../schemas/common';

const MAX_ENROLLMENTS = 100_000;

const simulationJob = z
  .object({
    id: z.uuid(),
    journeyId: z.string(),
    status: z.enum(['pending', 'processing', 'completed', 'failed']),
    window: z.object({ since: timestamp, until: timestamp }),
    limit: z.number().int(),
    progress: z
      .object({ processed: z.number().int(), total: z.number().int().nullable() })
      .describe('enrollments replayed so far; total is null until the window has been read'),
    result: simulationResultSchema.nullable().describe('the report, once completed (the same report `waymark simulate --json` prints)'),
    error: z.string().nullable(),
    createdAt: timestamp,
    startedAt: nullableTimestamp,
    completedAt: nullableTimestamp,
  })
  .meta({ id: 'SimulationJob' });

const journeyParams = z.object({ id: z.string().min(1).max(100) });
const tags = ['journeys'];

/**
 * Admin plane: dry-runs of a journey's current code over a window of real history, as background
 * jobs in the worker (docs/journeys.md, "Simulate"). Nothing is sent; the job row is all that is written.
 */
export const journeySimulationRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  app.post(
    '/v1/admin/journeys/:id/simulate',
    {
      config: { scope: 'full-admin', audit: { resource: 'journey', action: 'simulate' } },
      schema: {
        tags,
        summary: 'Simulate the journey over a window of real history (background job; nothing is sent)',
        description:
          "Replays the people whose trigger event arrived in the window (each person's first trigger, up to `limit`, oldest first) through the journey's current code, with their later events at their real times. Poll the job for progress and the report. 400 when `since` is neither a duration nor an ISO 8601 date, or does not lie in the past.",
        params: journeyParams,
        body: z.strictObject({
          since: z
            .string()
            .min(1)
            .max(64)
            .describe("start of the window: a duration back from now ('30d', '2 weeks') or an ISO 8601 date; the window ends now"),
          limit: z.number().int().min(1).max(MAX_ENROLLMENTS).default(10_000).describe('at most this many people are replayed'),
        }),
        response: { 202: z.object({ job: simulationJob }), 404: errorBody, ...bearerErrors },
      },
    },
    async (request, reply) => {
      const job = await startSimulationJob(
        { db: deps.db, journeys: deps.journeys, jobs: deps.temporal.jobs },
        { journeyId: request.params.id, since: request.body.since, limit: request.body.limit, createdBy: request.principal?.actor ?? null },
      );
      request.auditRecord = { resourceId: request.params.id, detail: { jobId: job.id, since: request.body.since, limit: request.body.limit } };
      return reply.status(202).send({ job });
    },
  );

  app.get(
    '/v1/admin/journeys/:id/simulations/:jobId',
    {
      config: { scope: 'full-admin' },
      schema: {
        tags,
        summary: 'A simulation job: status, progress and, once completed, the report',
        params: journeyParams.extend({ jobId: z.uuid() }),
        response: { 200: z.object({ job: simulationJob }), 404: errorBody, ...bearerErrors },
      },
    },
    async (request): Promise<{ job: SimulationJob }> => ({ job: await getSimulationJob(deps.db, request.params.id, request.params.jobId) }),
  );
};
