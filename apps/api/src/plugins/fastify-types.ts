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
     * origins besides our own a person's session may call this route from (the CSRF check of a
     * POST); app.ts gives the same route CORS with credentials for them
     */
    sessionOrigins?: ReadonlySet<string>;
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
