import { z } from 'zod';
import { findUnstorable } from '@waymark/core/db/storable-value';
import { badRequest } from '@waymark/core/errors/app-error';
import type { RoutePlugin } from '../../http/type-provider';
import type { AppDeps } from '../../deps';
import { bearerErrors, emailAddress, requireAnyOf, text } from '../../schemas/common';
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
    listsError: z.string().optional(),
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
        description: 'The `Idempotency-Key` header wins over the body field; a repeated key stores and routes nothing (stored: false).',
        body: eventBody,
        response: { 202: ingestResponse, ...bearerErrors },
      },
    },
    async (request, reply) => {
      const header = request.headers['idempotency-key'];
      const parsedHeader = typeof header === 'string' && header !== '' ? idempotencyHeader.safeParse(header) : undefined;
      if (parsedHeader?.success === false) throw badRequest('Invalid request: the Idempotency-Key header must be 1 to 255 characters');
      const headerKey = parsedHeader?.data;
      // the body was checked by the app's preValidation hook; a header is not part of that walk
      const unstorableHeader = headerKey === undefined ? undefined : findUnstorable(headerKey, 'Idempotency-Key header');
      if (unstorableHeader !== undefined) throw badRequest(`Invalid request: ${unstorableHeader}`);
      const { timestamp, idempotencyKey, ...body } = request.body;
      const key = headerKey ?? idempotencyKey;
      const result = await deps.ingest({
        ...body,
        ...(key === undefined ? {} : { idempotencyKey: key }),
        ...(timestamp === undefined ? {} : { timestamp: new Date(timestamp) }),
        source: 'api',
        storableChecked: true,
      });
      return reply.status(202).send(result);
    },
  );
};
