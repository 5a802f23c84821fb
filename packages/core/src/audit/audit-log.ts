import type { Db } from '../db/database';
import type { AuditActorType, AuditLogRow, JsonObject } from '../db/schema';
import { paginate, soleFilter, type CountedFilter } from '../db/paginate';

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
  // broadcasts (docs/broadcasts.md)
  'send',
  'pause',
  'resume',
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
  'segment',
  'broadcast',
  'user',
  'organization',
  'member',
  'invitation',
  // the reputation breaker's changes of state (docs/email.md, "Reputation breaker")
  'deliverability',
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

/** Writes one audit row; its id. */
export async function recordAudit(db: Db, entry: AuditEntryInput): Promise<string> {
  const row = await db
    .insertInto('auditLogs')
    .values({ ...entry, detail: entry.detail === null ? null : JSON.stringify(entry.detail) })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** What a change learnt after its audit row was written (a settled unit: scoped-transactions.ts): its resource id and detail. */
export async function refineAudit(db: Db, id: string, refined: { resourceId: string | null; detail: JsonObject | null }): Promise<void> {
  await db
    .updateTable('auditLogs')
    .set({ resourceId: refined.resourceId, detail: refined.detail === null ? null : JSON.stringify(refined.detail) })
    .where('id', '=', id)
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

/**
 * Who wrote a row as a signed-in user (docs/auth.md). `id` is null for a failed sign-in (nobody
 * signed in: `email` is the address tried); `name` is the user's current display name.
 */
export interface UserActor {
  type: 'user';
  id: string | null;
  email: string;
  name: string | null;
}

/** A row as the audit-log API shows it: the contract's fields, plus `actorDetail` on rows written by a person. */
export type AuditLogEntry = Omit<AuditLogRow, 'actorType' | 'actorUserId'> & { actorDetail?: UserActor };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const AUDIT_FILTERS = ['actor', 'resource', 'action', 'from', 'to'] as const;

/** A lone actor (by name, not a user id), resource or action filter: its total is a counter (migration 0132). */
function countedAuditFilter(query: AuditLogQuery): CountedFilter | undefined {
  const sole = soleFilter(query, AUDIT_FILTERS);
  if (sole === undefined || sole === 'from' || sole === 'to') return undefined;
  const value = query[sole]!;
  if (sole === 'actor' && UUID.test(value)) return undefined;
  return { table: 'audit_logs', column: sole, value };
}

export async function listAuditLogs(db: Db, query: AuditLogQuery): Promise<{ logs: AuditLogEntry[]; total: number }> {
  let base = db.selectFrom('auditLogs');
  const actor = query.actor;
  // a key name or an email is the stored `actor`; a user can also be named by id
  if (actor !== undefined)
    base = UUID.test(actor)
      ? base.where((eb) => eb.or([eb('actor', '=', actor), eb('actorUserId', '=', actor.toLowerCase())]))
      : base.where('actor', '=', actor);
  if (query.resource !== undefined) base = base.where('resource', '=', query.resource);
  if (query.action !== undefined) base = base.where('action', '=', query.action);
  if (query.from !== undefined) base = base.where('createdAt', '>=', query.from);
  if (query.to !== undefined) base = base.where('createdAt', '<=', query.to);
  const { rows, total } = await paginate(base.selectAll().orderBy('createdAt', 'desc').orderBy('id', 'desc'), base, query, countedAuditFilter(query));
  return { logs: await withActorDetail(db, rows), total };
}

async function withActorDetail(db: Db, rows: AuditLogRow[]): Promise<AuditLogEntry[]> {
  const userIds = [...new Set(rows.flatMap((row) => (row.actorUserId === null ? [] : [row.actorUserId])))];
  const users = userIds.length === 0 ? [] : await db.selectFrom('users').select(['id', 'name']).where('id', 'in', userIds).execute();
  const names = new Map(users.map((user) => [user.id, user.name]));
  return rows.map(({ actorType, actorUserId, ...entry }) =>
    actorType === 'user'
      ? { ...entry, actorDetail: { type: 'user', id: actorUserId, email: entry.actor, name: actorUserId === null ? null : (names.get(actorUserId) ?? null) } }
      : entry,
  );
}
