import type { FastifyCorsOptions } from '@fastify/cors';
import type { Principal } from '@waymark/core/auth/authenticator';
import type { Scope } from '@waymark/core/auth/scopes';
import type { AuditAction, AuditResource } from '@waymark/core/audit/audit-log';
import type { JsonObject } from '@waymark/core/db/schema';
import type { Unit } from '@waymark/core/db/scoped-transactions';

/** What a route may declare in `config` (docs/contributing.md, "Routes declare everything": scope and audit live on the route). */
declare module 'fastify' {
  interface FastifyContextConfig {
    /** required scope; every route inside the bearer context must declare one */
    scope?: Scope;
    /**
     * this route's CORS, merged over the app's by @fastify/cors. An origin it lets send credentials
     * is also one a person's session may change things from on this route (session-principal.ts).
     */
    cors?: FastifyCorsOptions;
    /** admin mutations name the audit resource and action they record */
    audit?: { resource: AuditResource; action: AuditAction };
  }
  interface FastifyRequest {
    principal?: Principal;
    /** set by a handler to refine the audit row (defaults: params.id, no detail) */
    auditRecord?: { resourceId?: string | null; detail?: JsonObject | null };
    /** an audited route's unit of work: its change and its audit row commit together (audit-trail.ts) */
    auditUnit?: Unit;
  }
}

export {};
