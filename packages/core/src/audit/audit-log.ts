import type { Db } from '../db/database';
import type { AuditLogRow, JsonObject } from '../db/schema';
import { paginate } from '../db/paginate';

/** Closed sets; an audited route must name one of each. */
export const auditActions = ['create', 'update', 'delete', 'revoke', 'enroll', 'cancel', 'import', 'export', 'replay', 'resend', 'rotate', 'test'] as const;
export const auditResources = ['contact', 'journey', 'api-key', 'alert-rule', 'email', 'event', 'dlq', 'webhook-endpoint'] as const;
export type AuditAction = (typeof auditActions)[number];
export type AuditResource = (typeof auditResources)[number];

export interface AuditEntryInput {
  actor: string;
  actorKeyId: string | null;
  action: AuditAction;
  resource: AuditResource;
  resourceId: string | null;
  detail: JsonObject | null;
  ipAddress: string;
}

export async function recordAudit(db: Db, entry: AuditEntryInput): Promise<void> {
  await db
    .insertInto('auditLogs')
    .values({ ...entry, detail: entry.detail === null ? null : JSON.stringify(entry.detail) })
    .execute();
}

export interface AuditLogQuery {
  limit: number;
  offset: number;
  actor?: string | undefined;
  resource?: string | undefined;
  action?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
}

export async function listAuditLogs(db: Db, query: AuditLogQuery): Promise<{ logs: AuditLogRow[]; total: number }> {
  let base = db.selectFrom('auditLogs');
  if (query.actor !== undefined) base = base.where('actor', '=', query.actor);
  if (query.resource !== undefined) base = base.where('resource', '=', query.resource);
  if (query.action !== undefined) base = base.where('action', '=', query.action);
  if (query.from !== undefined) base = base.where('createdAt', '>=', query.from);
  if (query.to !== undefined) base = base.where('createdAt', '<=', query.to);
  const { rows, total } = await paginate(base.selectAll().orderBy('createdAt', 'desc').orderBy('id', 'desc'), base, query);
  return { logs: rows, total };
}
