import { z } from 'zod';
import type { RoutePlugin } from '../../http/type-provider';
import { createApiKey, listApiKeys, revokeApiKey } from '@waymark/core/auth/api-keys';
import { scopeSchema } from '@waymark/core/auth/scopes';
import { badRequest } from '@waymark/core/errors/app-error';
import type { AppDeps } from '../../deps';
import { bearerErrors, booleanQuery, errorBody, listEnvelope, nullableTimestamp, page, paginationQuery, timestamp } from '../../schemas/common';

const apiKeyRecord = z
  .object({
    id: z.uuid(),
    name: z.string(),
    keyPrefix: z.string(),
    scopes: z.array(scopeSchema),
    expiresAt: nullableTimestamp,
    revokedAt: nullableTimestamp,
    lastUsedAt: nullableTimestamp,
    createdAt: timestamp,
  })
  .meta({ id: 'ApiKeyRecord' });

const createBody = z.object({
  name: z.string().trim().min(1).max(200),
  scopes: z.array(scopeSchema).min(1),
  expiresAt: z.iso.datetime({ offset: true }).optional(),
});

const tags = ['api-keys'];

/** SPEC §4 Admin: API keys (full-admin). No rotation: create, switch clients, revoke. */
export const apiKeyRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/v1/admin/api-keys',
    {
      config: { scope: 'full-admin' },
      schema: {
        tags,
        summary: 'List API keys',
        querystring: paginationQuery.extend({ includeRevoked: booleanQuery.default(false) }),
        response: { 200: listEnvelope('keys', apiKeyRecord), ...bearerErrors },
      },
    },
    async (request) => {
      return page(request.query, await listApiKeys(deps.db, request.query));
    },
  );

  app.post(
    '/v1/admin/api-keys',
    {
      config: { scope: 'full-admin', audit: { resource: 'api-key', action: 'create' } },
      schema: {
        tags,
        summary: 'Create an API key (the raw key is returned only here)',
        body: createBody,
        response: {
          201: apiKeyRecord.pick({ id: true, name: true, keyPrefix: true, scopes: true, expiresAt: true, createdAt: true }).extend({ key: z.string() }),
          ...bearerErrors,
        },
      },
    },
    async (request, reply) => {
      const expiresAt = request.body.expiresAt === undefined ? null : new Date(request.body.expiresAt);
      if (expiresAt !== null && expiresAt.getTime() <= Date.now()) throw badRequest('expiresAt must be in the future');
      const created = await createApiKey(deps.db, { name: request.body.name, scopes: request.body.scopes, expiresAt });
      request.auditRecord = { resourceId: created.id, detail: { name: created.name, scopes: created.scopes } };
      return reply.status(201).send(created);
    },
  );

  app.delete(
    '/v1/admin/api-keys/:id',
    {
      config: { scope: 'full-admin', audit: { resource: 'api-key', action: 'revoke' } },
      schema: {
        tags,
        summary: 'Revoke an API key (evicted from every instance cache at once)',
        params: z.object({ id: z.uuid() }),
        response: { 200: z.object({ revoked: z.literal(true) }), 404: errorBody, ...bearerErrors },
      },
    },
    async (request) => {
      const { keyHash } = await revokeApiKey(deps.db, request.params.id);
      await deps.keyRevocations.publish(keyHash);
      return { revoked: true as const };
    },
  );
};
