import { z } from 'zod';
import { eventEffects, getEventJourneys } from '@waymark/core/journeys/event-journeys';
import { journeyStatuses } from '@waymark/core/journeys/journey-states';
import { getEvent, listEvents } from '@waymark/core/events/events';
import { REPLAY_MAX_LIMIT, replayEvents } from '@waymark/core/replays/replay-events';
import { getReplayJob, REPLAY_JOB_MAX_IDS, REPLAY_JOB_MAX_LIMIT, startReplayJob } from '@waymark/core/replays/replay-jobs';
import type { RoutePlugin } from '../../http/type-provider';
import type { AppDeps } from '../../deps';
import {
  bearerErrors,
  booleanQuery,
  catalogViolations,
  errorBody,
  dateRangeQuery,
  listEnvelope,
  nullableTimestamp,
  page,
  paginationQuery,
  requireAnyOf,
  timestamp,
} from '../../schemas/common';

const storedEvent = z
  .object({
    id: z.uuid(),
    userId: z.string(),
    event: z.string(),
    properties: z.record(z.string(), z.unknown()),
    occurredAt: timestamp,
    catalogViolations: catalogViolations.optional(),
  })
  .meta({ id: 'Event' });

const quarantinedFilter =
  'true: only events the event catalog quarantined (stored with catalogViolations; docs/journeys.md, "Catalog violations"); false: only the others';

/** The selection body of both replays; they differ only in how much one request may take. */
function replaySelection(maxIds: number, maxLimit: number) {
  return z
    .object({
      eventIds: z.array(z.uuid()).min(1).max(maxIds).optional(),
      filter: z
        .object({
          event: z.string().min(1).optional(),
          userId: z.string().min(1).optional(),
          ...dateRangeQuery,
          quarantined: z.boolean().optional().describe(quarantinedFilter),
        })
        .optional(),
      limit: z.number().int().min(1).max(maxLimit).optional(),
    })
    .refine((body) => body.eventIds !== undefined || body.filter !== undefined, { message: 'Provide eventIds or filter' })
    .meta(requireAnyOf('eventIds', 'filter'));
}

const replayJob = z
  .object({
    id: z.uuid(),
    status: z.enum(['pending', 'processing', 'completed', 'failed']),
    matched: z.number().describe('events the selection matched; 0 until the run has taken its snapshot of them'),
    processed: z.number().describe('events replayed'),
    failed: z.number().describe('events that could not be replayed (listed in errors, up to 1000)'),
    errors: z.array(z.object({ eventId: z.string().nullable(), error: z.string() })).describe('eventId is null for a failure of the job itself'),
    createdAt: timestamp,
    completedAt: nullableTimestamp,
  })
  .meta({ id: 'ReplayJob' });

const eventJourney = z
  .object({
    effect: z.enum(eventEffects),
    journeyId: z.string(),
    journeyName: z.string().nullable(),
    stateId: z.uuid(),
    status: z.enum(journeyStatuses),
    nodeId: z.string(),
    at: timestamp,
  })
  .meta({ id: 'EventJourneyEffect' });

const tags = ['events'];

/** Admin plane: events. Reads need `read`; replay is full-admin. */
export const adminEventRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/v1/admin/events',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: 'List events, newest first',
        querystring: paginationQuery.extend({
          userId: z.string().min(1).optional(),
          event: z.string().min(1).optional(),
          ...dateRangeQuery,
          quarantined: booleanQuery.optional().describe(quarantinedFilter),
        }),
        response: { 200: listEnvelope('events', storedEvent), ...bearerErrors },
      },
    },
    async (request) => {
      return page(request.query, await listEvents(deps.db, request.query));
    },
  );

  app.get(
    '/v1/admin/events/:id',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: 'One event',
        params: z.object({ id: z.uuid() }),
        response: { 200: z.object({ event: storedEvent }), 404: errorBody, ...bearerErrors },
      },
    },
    async (request) => ({ event: await getEvent(deps.db, request.params.id) }),
  );

  app.get(
    '/v1/admin/events/:id/journeys',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: 'The journey runs one event started (its trigger), resumed (a wait for it) or exited (an exitOn rule), oldest first',
        description:
          '`status` is the state now. A trigger that its `where` or an entry guard turned away left no run and is not listed; ' +
          'GET /v1/admin/contacts/{id}/explain says why.',
        params: z.object({ id: z.uuid() }),
        response: { 200: z.object({ journeys: z.array(eventJourney) }), 404: errorBody, ...bearerErrors },
      },
    },
    async (request) => ({ journeys: await getEventJourneys(deps.db, deps.journeys, request.params.id) }),
  );

  app.post(
    '/v1/admin/events/replay',
    {
      config: { scope: 'full-admin', audit: { resource: 'event', action: 'replay' } },
      schema: {
        tags,
        summary: `Replay stored events through the ingest pipeline (eventIds or filter; at most ${REPLAY_MAX_LIMIT} per request)`,
        description:
          `Runs inside the request, oldest first (one user's events in order, different users in parallel), so it is bounded to stay under a second: ` +
          `\`limit\` defaults to and may not exceed ${REPLAY_MAX_LIMIT}, and \`eventIds\` holds at most ${REPLAY_MAX_LIMIT} ids. ` +
          `Replay more with a background job: POST /v1/admin/events/replay-jobs.`,
        body: replaySelection(REPLAY_MAX_LIMIT, REPLAY_MAX_LIMIT),
        response: { 200: z.object({ replayed: z.number(), errors: z.array(z.object({ eventId: z.string(), error: z.string() })) }), ...bearerErrors },
      },
    },
    async (request) => {
      const result = await replayEvents(deps, request.body);
      request.auditRecord = { resourceId: null, detail: { replayed: result.replayed, errors: result.errors.length } };
      return result;
    },
  );

  app.post(
    '/v1/admin/events/replay-jobs',
    {
      config: { scope: 'full-admin', audit: { resource: 'event', action: 'replay' } },
      schema: {
        tags,
        summary: `Replay stored events as a durable background job (at most ${REPLAY_JOB_MAX_LIMIT} events)`,
        description:
          `The selection of POST /v1/admin/events/replay without its per-request bound: \`limit\` defaults to and may not exceed ${REPLAY_JOB_MAX_LIMIT}, ` +
          `\`eventIds\` holds at most ${REPLAY_JOB_MAX_IDS} ids. The matched events are fixed when the job starts (the events it stores are not replayed again) ` +
          `and replayed oldest first; poll GET /v1/admin/events/replay-jobs/{id} for progress. A job resumed after a worker restart replays no event twice.`,
        body: replaySelection(REPLAY_JOB_MAX_IDS, REPLAY_JOB_MAX_LIMIT),
        response: { 202: z.object({ job: replayJob }), ...bearerErrors },
      },
    },
    async (request, reply) => {
      const job = await startReplayJob({ db: deps.db, jobs: deps.temporal.jobs }, request.body, request.principal?.actor ?? null);
      request.auditRecord = {
        resourceId: job.id,
        detail: { eventIds: request.body.eventIds?.length ?? 0, filter: request.body.filter !== undefined, limit: request.body.limit ?? null },
      };
      return reply.status(202).send({ job });
    },
  );

  app.get(
    '/v1/admin/events/replay-jobs/:id',
    {
      config: { scope: 'full-admin' },
      schema: {
        tags,
        summary: 'Progress of a replay job',
        params: z.object({ id: z.uuid() }),
        response: { 200: z.object({ job: replayJob }), 404: errorBody, ...bearerErrors },
      },
    },
    async (request) => ({ job: await getReplayJob(deps.db, request.params.id) }),
  );
};
