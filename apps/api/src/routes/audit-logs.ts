import { z } from 'zod';
import type { RoutePlugin } from '../http/type-provider';
import { auditActions, auditResources, listAuditLogs } from '@waymark/core/audit/audit-log';
import type { AppDeps } from '../deps';
import { bearerErrors, isoDateQuery, paginationQuery, timestamp } from '../http/schemas';

const auditLogEntry = z
  .object({
    id: z.uuid(),
    actor: z.string(),
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
          from: isoDateQuery.optional(),
          to: isoDateQuery.optional(),
        }),
        response: { 200: z.object({ logs: z.array(auditLogEntry), total: z.number(), limit: z.number(), offset: z.number() }), ...bearerErrors },
      },
    },
    async (request) => {
      const { logs, total } = await listAuditLogs(deps.db, request.query);
      return { logs, total, limit: request.query.limit, offset: request.query.offset };
    },
  );
};
