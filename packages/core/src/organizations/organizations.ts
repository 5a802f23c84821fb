import { sql } from 'kysely';
import type { Db } from '../db/database';
import type { OrganizationRow } from '../db/schema';
import { badRequest, conflict, forbidden, notFound } from '../errors/app-error';
import { managesOrganization, type MemberRole } from './roles';

/** Installation limits (docs/auth.md): a Waymark serves a few teams, not a SaaS tenant list. */
export const MAX_ORGANIZATIONS = 5;
export const MAX_MEMBERS_PER_ORGANIZATION = 100;

export interface Membership {
  organizationId: string;
  name: string;
  slug: string;
  role: MemberRole;
}

export interface Member {
  userId: string;
  email: string;
  name: string | null;
  role: MemberRole;
  joinedAt: Date;
}

/**
 * The user's organizations, oldest membership first (the first is the default active one). The
 * role is the person's own, the same in each: an organization is a team, not a tenant (docs/auth.md).
 */
export async function listMemberships(db: Db, userId: string): Promise<Membership[]> {
  return db
    .selectFrom('organizationMembers as m')
    .innerJoin('organizations as o', 'o.id', 'm.organizationId')
    .innerJoin('users as u', 'u.id', 'm.userId')
    .select(['o.id as organizationId', 'o.name', 'o.slug', 'u.accessRole as role'])
    .where('m.userId', '=', userId)
    .orderBy('m.createdAt')
    .orderBy('o.createdAt')
    .execute();
}

export function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48);
  return slug === '' ? 'organization' : slug;
}

/**
 * Creates an organization owned by `ownerId`, inside the caller's transaction. The 5-organization
 * limit is checked under an advisory lock so two concurrent creations cannot both take the last slot.
 */
export async function createOrganizationWithin(tx: Db, input: { name: string; slug?: string | undefined; ownerId: string }): Promise<OrganizationRow> {
  await sql`select pg_advisory_xact_lock(hashtext('waymark:organizations'))`.execute(tx);
  const { count } = await tx
    .selectFrom('organizations')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  if (count >= MAX_ORGANIZATIONS) throw badRequest(`Organization limit reached: an installation has at most ${MAX_ORGANIZATIONS} organizations`);
  const slug = input.slug ?? slugify(input.name);
  const organization = await tx
    .insertInto('organizations')
    .values({ name: input.name, slug })
    .onConflict((oc) => oc.expression(sql`lower(slug)`).doNothing())
    .returningAll()
    .executeTakeFirst();
  if (organization === undefined) throw conflict(`An organization with slug "${slug}" already exists`);
  await tx.insertInto('organizationMembers').values({ organizationId: organization.id, userId: input.ownerId }).execute();
  return organization;
}

export async function findOrganization(db: Db, id: string): Promise<OrganizationRow | undefined> {
  return db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The person's role, when they belong to the organization. */
export async function findMemberRole(db: Db, organizationId: string, userId: string): Promise<MemberRole | undefined> {
  const row = await db
    .selectFrom('organizationMembers as m')
    .innerJoin('users as u', 'u.id', 'm.userId')
    .select('u.accessRole as role')
    .where('m.organizationId', '=', organizationId)
    .where('m.userId', '=', userId)
    .executeTakeFirst();
  return row?.role;
}

/** The caller's role; 404 when the organization does not exist or the caller is not in it. */
export async function getCallerRole(db: Db, organizationId: string, userId: string): Promise<MemberRole> {
  const role = await findMemberRole(db, organizationId, userId);
  if (role === undefined) throw notFound('Organization not found');
  return role;
}

/** 403 unless the caller is an owner or admin who belongs to the organization; returns their role. */
export async function assertManager(db: Db, organizationId: string, userId: string): Promise<MemberRole> {
  const role = await getCallerRole(db, organizationId, userId);
  if (!managesOrganization(role)) throw forbidden('Only an owner or admin of this organization can do this');
  return role;
}

export async function listMembers(db: Db, organizationId: string): Promise<Member[]> {
  return db
    .selectFrom('organizationMembers as m')
    .innerJoin('users as u', 'u.id', 'm.userId')
    .select(['m.userId', 'u.email', 'u.name', 'u.accessRole as role', 'm.createdAt as joinedAt'])
    .where('m.organizationId', '=', organizationId)
    .orderBy('m.createdAt')
    .execute();
}

/**
 * Adds a member (or changes nothing when already one) inside the caller's transaction, under a
 * per-organization lock so the 100-member limit holds under concurrent invitations.
 */
export async function addMemberWithin(tx: Db, input: { organizationId: string; userId: string }): Promise<void> {
  await lockMembers(tx, input.organizationId);
  const existing = await tx
    .selectFrom('organizationMembers')
    .select('userId')
    .where('organizationId', '=', input.organizationId)
    .where('userId', '=', input.userId)
    .executeTakeFirst();
  if (existing !== undefined) return;
  await assertRoomForMember(tx, input.organizationId);
  await tx.insertInto('organizationMembers').values(input).execute();
}

export async function addMember(db: Db, input: { organizationId: string; userId: string }): Promise<void> {
  await db.transaction().execute((tx) => addMemberWithin(tx, input));
}

/** 400 when the organization already has 100 members (stated in the message). */
export async function assertRoomForMember(db: Db, organizationId: string): Promise<void> {
  const { count } = await db
    .selectFrom('organizationMembers')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('organizationId', '=', organizationId)
    .executeTakeFirstOrThrow();
  if (count >= MAX_MEMBERS_PER_ORGANIZATION) {
    throw badRequest(`Member limit reached: an organization has at most ${MAX_MEMBERS_PER_ORGANIZATION} members`);
  }
}

/**
 * Serializes changes to who is an owner, across the installation: the "every organization keeps
 * an owner" rule reads owners of several organizations, then writes.
 */
async function lockOwners(tx: Db): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext('waymark:owners'))`.execute(tx);
}

/** Serializes member changes of one organization (the member limit reads then writes). */
async function lockMembers(tx: Db, organizationId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${`waymark:members:${organizationId}`}))`.execute(tx);
}

/** Organizations among `organizationIds` whose only owner member is `userId`. */
async function organizationsOwnedOnlyBy(tx: Db, userId: string, organizationIds: readonly string[]): Promise<string[]> {
  if (organizationIds.length === 0) return [];
  const rows = await tx
    .selectFrom('organizationMembers as m')
    .innerJoin('users as u', 'u.id', 'm.userId')
    .select('m.organizationId')
    .where('m.organizationId', 'in', organizationIds)
    .where('u.accessRole', '=', 'owner')
    .groupBy('m.organizationId')
    .having(sql<boolean>`bool_and(m.user_id = ${userId})`)
    .execute();
  return rows.map((row) => row.organizationId);
}

/** A person's role and teams, read under the owners lock; 404 when they are not in `organizationId`. */
async function lockedMember(tx: Db, input: { organizationId: string; userId: string }): Promise<{ role: MemberRole; organizationIds: string[] }> {
  await lockOwners(tx);
  const rows = await tx
    .selectFrom('organizationMembers as m')
    .innerJoin('users as u', 'u.id', 'm.userId')
    .select(['u.accessRole as role', 'm.organizationId'])
    .where('m.userId', '=', input.userId)
    .execute();
  const [first] = rows;
  if (first === undefined || !rows.some((row) => row.organizationId === input.organizationId)) throw notFound('Member not found');
  return { role: first.role, organizationIds: rows.map((row) => row.organizationId) };
}

/**
 * Changes a person's role (one role per person: it applies in every organization they belong
 * to), inside the caller's transaction (the owners lock is held to its end). Every organization
 * keeps an owner: demoting the last owner of any of theirs is a 409. Returns the previous role.
 */
export async function changeMemberRoleWithin(tx: Db, input: { organizationId: string; userId: string; role: MemberRole }): Promise<MemberRole> {
  const current = await lockedMember(tx, input);
  if (current.role === 'owner' && input.role !== 'owner' && (await organizationsOwnedOnlyBy(tx, input.userId, current.organizationIds)).length > 0) {
    throw conflict('The last owner of an organization cannot be demoted; make another member owner first');
  }
  await tx.updateTable('users').set({ accessRole: input.role, updatedAt: new Date() }).where('id', '=', input.userId).execute();
  return current.role;
}

/**
 * Removes a member from one organization, inside the caller's transaction; the last owner of it
 * cannot be removed (409). Answers how many organizations the person still belongs to.
 */
export async function removeMemberWithin(tx: Db, input: { organizationId: string; userId: string }): Promise<{ organizationsLeft: number }> {
  const current = await lockedMember(tx, input);
  if (current.role === 'owner' && (await organizationsOwnedOnlyBy(tx, input.userId, [input.organizationId])).length > 0) {
    throw conflict('The last owner of an organization cannot be removed; make another member owner first');
  }
  await tx.deleteFrom('organizationMembers').where('organizationId', '=', input.organizationId).where('userId', '=', input.userId).execute();
  return { organizationsLeft: current.organizationIds.length - 1 };
}
