import { z } from 'zod';
import type { RoutePlugin } from '../../http/type-provider';
import { auditActions, auditResources, listAuditLogs } from '@waymark/core/audit/audit-log';
import type { AppDeps } from '../../deps';
import { bearerErrors, dateRangeQuery, listEnvelope, page, paginationQuery, timestamp } from '../../schemas/common';

const userActor = z
  .object({
    type: z.literal('user'),
    id: z.string().nullable().meta({ description: 'the user id; null on a failed sign-in (nobody signed in)' }),
    email: z.string().meta({ description: 'the email signed in with (or tried, on a failed sign-in)' }),
    name: z.string().nullable().meta({ description: 'the user’s current display name' }),
  })
  .meta({ id: 'AuditUserActor' });

const auditLogEntry = z
  .object({
    id: z.uuid(),
    actor: z.string().meta({ description: 'key name, `legacy` for ADMIN_API_KEY, or the email of a signed-in user' }),
    actorKeyId: z.uuid().nullable(),
    actorDetail: userActor.optional().meta({
      description:
        'Only on rows written by a signed-in person (a studio session, sign-in, sign-out, password and member changes): ' +
        '`{type: "user", id, email, name}`. Rows written by a key have no actorDetail; their `actor` and `actorKeyId` say who.',
    }),
    action: z.string(),
    resource: z.string(),
    resourceId: z.string().nullable(),
    detail: z.record(z.string(), z.unknown()).nullable(),
    ipAddress: z.string(),
    createdAt: timestamp,
  })
  .meta({ id: 'AuditLogEntry' });

export const auditLogRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/v1/admin/audit-logs',
    {
      config: { scope: 'read' },
      schema: {
        tags: ['audit'],
        summary: 'List audit log entries, newest first',
        querystring: paginationQuery.extend({
          actor: z.string().min(1).optional().meta({ description: 'a key name, `legacy`, or a signed-in user’s email or id' }),
          resource: z.enum(auditResources).optional(),
          action: z.enum(auditActions).optional(),
          ...dateRangeQuery,
        }),
        response: { 200: listEnvelope('logs', auditLogEntry), ...bearerErrors },
      },
    },
    async (request) => {
      return page(request.query, await listAuditLogs(deps.db, request.query));
    },
  );
};
