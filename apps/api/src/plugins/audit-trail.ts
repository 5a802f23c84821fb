import type { FastifyInstance } from 'fastify';
import { recordAudit } from '@waymark/core/audit/audit-log';
import type { Db } from '@waymark/core/db/database';
import './fastify-types';

const MUTATIONS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Writes one audit row per successful admin mutation, before the response leaves, so a client
 * that reads the audit log right after its call sees its own entry.
 */
export async function auditTrail(app: FastifyInstance, options: { db: Db }): Promise<void> {
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (route.url.startsWith('/v1/admin/') && methods.some((m) => MUTATIONS.has(m)) && route.config?.audit === undefined) {
      throw new Error(`Admin mutation ${methods.join(',')} ${route.url} declares no audit resource/action`);
    }
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const audit = request.routeOptions.config.audit;
    if (audit === undefined || reply.statusCode >= 300 || request.principal === undefined) return payload;
    const params = request.params as Record<string, string | undefined>;
    await recordAudit(options.db, {
      actor: request.principal.actor,
      actorKeyId: request.principal.actorKeyId,
      actorType: request.principal.actorType,
      actorUserId: request.principal.actorUserId,
      action: audit.action,
      resource: audit.resource,
      resourceId: request.auditRecord?.resourceId ?? params.id ?? null,
      detail: request.auditRecord?.detail ?? null,
      ipAddress: request.ip,
    });
    return payload;
  });
}
