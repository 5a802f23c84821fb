import type { Db } from '../db/database';
import type { AuditActorType, AuditLogRow, JsonObject } from '../db/schema';
import { paginate } from '../db/paginate';

/** Closed sets; an audited route must name one of each. */
export const auditActions = [
  'create',
  'update',
  'delete',
  'revoke',
  'enroll',
  'cancel',
  'import',
  'export',
  'replay',
  'resend',
  'rotate',
  'test',
  'simulate',
  // people signing in (docs/auth.md)
  'sign-in',
  'sign-in-failed',
  'sign-out',
  'request-password-reset',
  'reset-password',
  'change-password',
  'invite',
  'accept-invitation',
] as const;
export const auditResources = [
  'contact',
  'journey',
  'api-key',
  'alert-rule',
  'email',
  'event',
  'dlq',
  'webhook-endpoint',
  'user',
  'organization',
  'member',
  'invitation',
] as const;
export type AuditAction = (typeof auditActions)[number];
export type AuditResource = (typeof auditResources)[number];

export interface AuditEntryInput {
  /** key name, `legacy`, or the user's email */
  actor: string;
  actorKeyId: string | null;
  /** defaults to `key` */
  actorType?: AuditActorType;
  actorUserId?: string | null;
  action: AuditAction;
  resource: AuditResource;
  resourceId: string | null;
  detail: JsonObject | null;
  ipAddress: string;
}

/** An audit row written by a signed-in user: actor `{type: 'user', id, email}`. */
export function userAudit(
  user: { id: string; email: string },
  entry: Pick<AuditEntryInput, 'action' | 'resource' | 'resourceId' | 'ipAddress'> & { detail?: JsonObject | null },
): AuditEntryInput {
  return { ...entry, actor: user.email, actorKeyId: null, actorType: 'user', actorUserId: user.id, detail: entry.detail ?? null };
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
