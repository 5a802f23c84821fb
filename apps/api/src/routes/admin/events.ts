import { z } from 'zod';
import { getEvent, listEvents, REPLAY_MAX_LIMIT, replayEvents } from '@waymark/core/events/events';
import { eventEffects, getEventJourneys } from '@waymark/core/journeys/event-journeys';
import { journeyStatuses } from '@waymark/core/journeys/journey-states';
import type { RoutePlugin } from '../../http/type-provider';
import type { AppDeps } from '../../deps';
import { bearerErrors, errorBody, dateRangeQuery, listEnvelope, page, paginationQuery, requireAnyOf, timestamp } from '../../schemas/common';

const storedEvent = z
  .object({ id: z.uuid(), userId: z.string(), event: z.string(), properties: z.record(z.string(), z.unknown()), occurredAt: timestamp })
  .meta({ id: 'Event' });

const replayBody = z
  .object({
    eventIds: z.array(z.uuid()).min(1).max(REPLAY_MAX_LIMIT).optional(),
    filter: z.object({ event: z.string().min(1).optional(), userId: z.string().min(1).optional(), ...dateRangeQuery }).optional(),
    limit: z.number().int().min(1).max(REPLAY_MAX_LIMIT).optional(),
  })
  .refine((body) => body.eventIds !== undefined || body.filter !== undefined, { message: 'Provide eventIds or filter' })
  .meta(requireAnyOf('eventIds', 'filter'));

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
          `Runs inside the request, oldest first, so it is bounded to stay under a second: \`limit\` defaults to and may not exceed ${REPLAY_MAX_LIMIT}, ` +
          `and \`eventIds\` holds at most ${REPLAY_MAX_LIMIT} ids. Replay more by narrowing \`filter.from\`/\`filter.to\` over several requests.`,
        body: replayBody,
        response: { 200: z.object({ replayed: z.number(), errors: z.array(z.object({ eventId: z.string(), error: z.string() })) }), ...bearerErrors },
      },
    },
    async (request) => {
      const result = await replayEvents(deps, request.body);
      request.auditRecord = { resourceId: null, detail: { replayed: result.replayed, errors: result.errors.length } };
      return result;
    },
  );
};
