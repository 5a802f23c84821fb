import { z } from 'zod';
import type { RoutePlugin } from '../../http/type-provider';
import { auditActions, auditResources, listAuditLogs } from '@waymark/core/audit/audit-log';
import type { AppDeps } from '../../deps';
import { bearerErrors, dateRangeQuery, listEnvelope, page, paginationQuery, timestamp } from '../../schemas/common';

const auditLogEntry = z
  .object({
    id: z.uuid(),
    actor: z.string().meta({ description: 'key name, `legacy`, or the email of a signed-in user' }),
    actorKeyId: z.uuid().nullable(),
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
          actor: z.string().min(1).optional(),
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
