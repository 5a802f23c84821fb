import { z } from 'zod';
import { outboundEventTypes } from '@waymark/core/outbox/event-types';
import { listWebhookDeliveries } from '@waymark/core/webhooks/outbound/webhook-deliveries';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookEndpoints,
  queueTestEvent,
  rotateWebhookEndpointSecret,
  updateWebhookEndpoint,
} from '@waymark/core/webhooks/outbound/webhook-endpoints';
import type { AppDeps } from '../../deps';
import type { RoutePlugin } from '../../http/type-provider';
import { bearerErrors, errorBody, listEnvelope, nullableTimestamp, page, paginationQuery, timestamp } from '../../schemas/common';

const eventType = z.enum(outboundEventTypes);

const endpointSchema = z
  .object({
    id: z.uuid(),
    url: z.string(),
    description: z.string().nullable(),
    events: z.array(z.string()),
    enabled: z.boolean(),
    disabledReason: z.string().nullable().describe('why Waymark disabled the endpoint (every delivery failed for the retry window)'),
    disabledAt: nullableTimestamp,
    failingSince: nullableTimestamp.describe('first failed delivery since the last success'),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'WebhookEndpoint' });

const secret = z.string().describe('standard-webhooks signing secret (whsec_ + base64); shown only in this response');

const deliverySchema = z
  .object({
    id: z.uuid(),
    eventId: z.uuid().describe('the outbound event id, sent as the webhook-id header on every attempt'),
    endpointId: z.uuid(),
    eventType: z.string(),
    status: z.enum(['pending', 'retrying', 'succeeded', 'failed', 'skipped']),
    attempts: z.number(),
    lastStatusCode: z.number().nullable(),
    lastDurationMs: z.number().nullable(),
    lastError: z.string().nullable(),
    responseBody: z.string().nullable().describe('the first 1 KiB of the last answer'),
    nextAttemptAt: nullableTimestamp,
    deliveredAt: nullableTimestamp,
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'WebhookDelivery' });

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2048);
const endpointFields = {
  url: httpUrl,
  events: z.array(eventType).min(1).max(outboundEventTypes.length).describe('event types this endpoint receives'),
  description: z.string().trim().max(500).optional(),
  enabled: z.boolean().optional(),
};

const endpointParams = z.object({ id: z.uuid() });
const tags = ['webhook-endpoints'];

/**
 * Outbound webhook endpoints (full-admin): where Waymark sends signed events. Delivery runs in
 * the worker (temporal/workflows/outbound-event.ts); docs/webhooks.md.
 */
export const webhookEndpointRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  app.post(
    '/v1/admin/webhook-endpoints',
    {
      config: { scope: 'full-admin', audit: { resource: 'webhook-endpoint', action: 'create' } },
      schema: {
        tags,
        summary: 'Create a webhook endpoint; the signing secret is shown only in this response',
        body: z.strictObject(endpointFields),
        response: { 201: endpointSchema.extend({ secret }), ...bearerErrors },
      },
    },
    async (request, reply) => {
      const endpoint = await createWebhookEndpoint(deps.db, deps.config.encryptionKeys, request.body);
      // the host only: a URL's credentials, path and query often are the receiver's secret, and a
      // read key opens the audit log
      request.auditRecord = { resourceId: endpoint.id, detail: { host: new URL(endpoint.url).host, events: endpoint.events } };
      return reply.status(201).send(endpoint);
    },
  );

  app.get(
    '/v1/admin/webhook-endpoints',
    {
      config: { scope: 'full-admin' },
      schema: {
        tags,
        summary: 'List webhook endpoints, newest first',
        querystring: paginationQuery,
        response: { 200: listEnvelope('endpoints', endpointSchema), ...bearerErrors },
      },
    },
    async (request) => page(request.query, await listWebhookEndpoints(deps.db, deps.config.encryptionKeys, request.query)),
  );

  app.get(
    '/v1/admin/webhook-endpoints/:id',
    {
      config: { scope: 'full-admin' },
      schema: {
        tags,
        summary: 'A webhook endpoint (without its secret)',
        params: endpointParams,
        response: { 200: endpointSchema, 404: errorBody, ...bearerErrors },
      },
    },
    async (request) => getWebhookEndpoint(deps.db, deps.config.encryptionKeys, request.params.id),
  );

  app.patch(
    '/v1/admin/webhook-endpoints/:id',
    {
      config: { scope: 'full-admin', audit: { resource: 'webhook-endpoint', action: 'update' } },
      schema: {
        tags,
        summary: 'Update a webhook endpoint; enabled: true re-enables one Waymark disabled',
        params: endpointParams,
        body: z.strictObject({ ...endpointFields, description: z.string().trim().max(500).nullable() }).partial(),
        response: { 200: endpointSchema, 404: errorBody, ...bearerErrors },
      },
    },
    async (request) => {
      const endpoint = await updateWebhookEndpoint(deps.db, deps.config.encryptionKeys, request.params.id, request.body);
      request.auditRecord = { resourceId: endpoint.id, detail: { fields: Object.keys(request.body) } };
      return endpoint;
    },
  );

  app.delete(
    '/v1/admin/webhook-endpoints/:id',
    {
      config: { scope: 'full-admin', audit: { resource: 'webhook-endpoint', action: 'delete' } },
      schema: {
        tags,
        summary: 'Delete a webhook endpoint and its delivery history',
        params: endpointParams,
        response: { 200: z.object({ deleted: z.literal(true) }), 404: errorBody, ...bearerErrors },
      },
    },
    async (request) => {
      await deleteWebhookEndpoint(deps.db, request.params.id);
      return { deleted: true as const };
    },
  );

  app.post(
    '/v1/admin/webhook-endpoints/:id/rotate-secret',
    {
      config: { scope: 'full-admin', audit: { resource: 'webhook-endpoint', action: 'rotate' } },
      schema: {
        tags,
        summary: 'Replace the signing secret; every later attempt is signed with the new one',
        params: endpointParams,
        response: { 200: z.object({ id: z.uuid(), secret }), 404: errorBody, ...bearerErrors },
      },
    },
    async (request) => rotateWebhookEndpointSecret(deps.db, deps.config.encryptionKeys, request.params.id),
  );

  app.post(
    '/v1/admin/webhook-endpoints/:id/test',
    {
      config: { scope: 'full-admin', audit: { resource: 'webhook-endpoint', action: 'test' } },
      schema: {
        tags,
        summary: 'Send a webhook.test event to this endpoint (delivered by the worker; see its deliveries)',
        params: endpointParams,
        response: { 202: z.object({ eventId: z.uuid() }), 404: errorBody, ...bearerErrors },
      },
    },
    async (request, reply) => reply.status(202).send(await queueTestEvent(deps.db, request.params.id)),
  );

  app.get(
    '/v1/admin/webhook-endpoints/:id/deliveries',
    {
      config: { scope: 'full-admin' },
      schema: {
        tags,
        summary: 'Deliveries to this endpoint, newest first',
        params: endpointParams,
        querystring: paginationQuery,
        response: { 200: listEnvelope('deliveries', deliverySchema), 404: errorBody, ...bearerErrors },
      },
    },
    async (request) => page(request.query, await listWebhookDeliveries(deps.db, request.params.id, request.query)),
  );
};
