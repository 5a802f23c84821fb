import { z } from 'zod';
import { badRequest } from '@waymark/core/errors/app-error';
import type { RoutePlugin } from '../../http/type-provider';
import type { AppDeps } from '../../deps';
import { bearerErrors, catalogViolations, emailAddress, requireAnyOf, text } from '../../schemas/common';
import { TIME_ZONE_NOTE } from '../../schemas/contacts';

const jsonObject = z.record(z.string(), z.unknown());

const eventBody = z
  .object({
    name: text(200),
    email: emailAddress.optional(),
    userId: text(255).optional(),
    eventProperties: jsonObject.optional(),
    contactProperties: jsonObject.describe(TIME_ZONE_NOTE).optional(),
    lists: z.record(text(200), z.boolean()).optional(),
    idempotencyKey: z.string().min(1).max(255).optional(),
    timestamp: z.iso
      .datetime({ offset: true })
      .describe(
        'When the event happened (ISO 8601 with offset); default now. Must lie between 1970-01-01T00:00:00Z and 24 hours after the server time, else 400.',
      )
      .optional(),
  })
  .refine((body) => body.userId !== undefined || body.email !== undefined, { message: 'One of email or userId is required', path: ['userId'] })
  .meta(requireAnyOf('userId', 'email'));

const ingestResponse = z
  .object({
    stored: z.boolean(),
    exits: z.array(z.object({ journeyId: z.string(), stateId: z.uuid(), exited: z.boolean() })),
    listsError: z
      .string()
      .optional()
      .describe(
        "present when the event's lists could not be written; the event is stored without them. Lists commit with the event, so a retry of its Idempotency-Key writes none",
      ),
    quarantined: z
      .literal(true)
      .optional()
      .describe('present only when the event catalog quarantined the event (EVENT_CATALOG_MODE=quarantine): stored, contact upserted, no journey moved'),
    catalogViolations: catalogViolations.optional(),
  })
  .meta({ id: 'IngestResult' });

const idempotencyHeader = z.string().min(1).max(255);

/** Data plane: POST /v1/events runs the whole ingest pipeline inside the request. */
export const eventRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  app.post(
    '/v1/events',
    {
      config: { scope: 'ingest' },
      schema: {
        tags: ['events'],
        summary: 'Ingest an event (store → route → exit check → contact upsert → lists)',
        description:
          'The `Idempotency-Key` header wins over the body field; a repeated key stores nothing new (stored: false) and first carries out ' +
          "whatever of the stored event's journey starts, signals and exits is still kept (an earlier attempt that died after its commit: " +
          'docs/operations.md, "Temporal outage"). ' +
          'A catalogued event whose properties miss its schema is, by EVENT_CATALOG_MODE: `quarantine` (default) stored with ' +
          '`quarantined: true` and its `catalogViolations`, starting, resuming and exiting nothing; `reject` a 400 naming the path, nothing stored; ' +
          '`off` ingested as any other event (docs/journeys.md, "Catalog violations").',
        body: eventBody,
        response: { 202: ingestResponse, ...bearerErrors },
      },
    },
    async (request, reply) => {
      const header = request.headers['idempotency-key'];
      const parsedHeader = typeof header === 'string' && header !== '' ? idempotencyHeader.safeParse(header) : undefined;
      if (parsedHeader?.success === false) throw badRequest('Invalid request: the Idempotency-Key header must be 1 to 255 characters');
      const headerKey = parsedHeader?.data;
      const { timestamp, idempotencyKey, ...body } = request.body;
      const key = headerKey ?? idempotencyKey;
      const result = await deps.ingest({
        ...body,
        ...(key === undefined ? {} : { idempotencyKey: key }),
        ...(timestamp === undefined ? {} : { timestamp: new Date(timestamp) }),
        source: 'api',
      });
      return reply.status(202).send(result);
    },
  );
};
