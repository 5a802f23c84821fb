import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { recordAudit, refineAudit, type AuditEntryInput } from '@waymark/core/audit/audit-log';
import type { Db } from '@waymark/core/db/database';
import type { ScopedTransactions } from '@waymark/core/db/scoped-transactions';
import './fastify-types';

const MUTATIONS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * One audit row per successful change of a route that declares `config.audit`, written in the
 * same transaction as the change: the handler runs in a unit of work (every statement through
 * `Db` on one connection, in one transaction), and the unit commits with the row before the
 * response leaves. If the row cannot be written, the change is rolled back and the client gets
 * an error for a change that did not happen, never one for a change that did (so a retry is
 * safe), and a client that reads the audit log right after its call sees its own entry. A failed
 * call (status 300 and up) rolls its writes back. An effect outside PostgreSQL (a workflow start,
 * a provider call) settles the unit first (deps.ts): the change and its row commit before it, and
 * what the handler learns after it refines the row (docs/architecture.md).
 */
export async function auditTrail(app: FastifyInstance, options: { db: Db; transactions: ScopedTransactions }): Promise<void> {
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (route.url.startsWith('/v1/admin/') && methods.some((m) => MUTATIONS.has(m)) && route.config?.audit === undefined) {
      throw new Error(`Admin mutation ${methods.join(',')} ${route.url} declares no audit resource/action`);
    }
  });

  // the row each request wrote, for a unit settled before the handler finished
  const written = new WeakMap<FastifyRequest, string>();

  // callback style: the rest of the request (handler, onSend) runs inside the unit's async scope
  app.addHook('preHandler', (request, _reply, done) => {
    if (request.routeOptions.config.audit === undefined) return done();
    const unit = options.transactions.begin();
    unit.beforeCommit = async () => {
      const entry = auditEntry(request);
      if (entry !== undefined) written.set(request, await recordAudit(options.db, entry));
    };
    request.auditUnit = unit;
    options.transactions.run(unit, done);
  });

  /** The row was committed before an outside effect: the change is done, so a failure to refine it is logged, not answered. */
  const refineSettled = async (request: FastifyRequest, reply: FastifyReply) => {
    const id = written.get(request);
    const entry = auditEntry(request);
    if (id === undefined || entry === undefined || request.auditRecord === undefined) return;
    try {
      await refineAudit(options.db, id, { resourceId: entry.resourceId, detail: entry.detail });
    } catch (error) {
      reply.log.warn({ err: error }, 'audit row written before an outside effect could not be refined with its resource id and detail');
    }
  };

  app.addHook('onSend', async (request, reply, payload) => {
    const unit = request.auditUnit;
    if (unit === undefined) return payload;
    if (reply.statusCode >= 300) await unit.rollback();
    else if (!unit.closed) await unit.commit();
    else if (unit.settled) await refineSettled(request, reply);
    return payload;
  });

  // a request that ended without onSend (the client went away): nothing of it is kept
  const abandon = async (request: FastifyRequest) => {
    await request.auditUnit?.rollback();
  };
  app.addHook('onResponse', abandon);
  app.addHook('onRequestAbort', abandon);
}

/** The row of a successful change, or undefined when nobody is signed in (nothing to attribute). */
function auditEntry(request: FastifyRequest): AuditEntryInput | undefined {
  const audit = request.routeOptions.config.audit;
  if (audit === undefined || request.principal === undefined) return undefined;
  const params = request.params as Record<string, string | undefined>;
  return {
    actor: request.principal.actor,
    actorKeyId: request.principal.actorKeyId,
    actorType: request.principal.actorType,
    actorUserId: request.principal.actorUserId,
    action: audit.action,
    resource: audit.resource,
    resourceId: request.auditRecord?.resourceId ?? params.id ?? null,
    detail: request.auditRecord?.detail ?? null,
    ipAddress: request.ip,
  };
}
