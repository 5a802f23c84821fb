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

/** The user's organizations, oldest membership first (the first is the default active one). */
export async function listMemberships(db: Db, userId: string): Promise<Membership[]> {
  return db
    .selectFrom('organizationMembers as m')
    .innerJoin('organizations as o', 'o.id', 'm.organizationId')
    .select(['o.id as organizationId', 'o.name', 'o.slug', 'm.role'])
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
  await tx.insertInto('organizationMembers').values({ organizationId: organization.id, userId: input.ownerId, role: 'owner' }).execute();
  return organization;
}

export async function createOrganization(db: Db, input: { name: string; slug?: string | undefined; ownerId: string }): Promise<OrganizationRow> {
  return db.transaction().execute((tx) => createOrganizationWithin(tx, input));
}

export async function findOrganization(db: Db, id: string): Promise<OrganizationRow | undefined> {
  return db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The caller's role in the organization; 404 when the organization does not exist or the caller is not in it. */
export async function getCallerRole(db: Db, organizationId: string, userId: string): Promise<MemberRole> {
  const row = await db
    .selectFrom('organizationMembers')
    .select('role')
    .where('organizationId', '=', organizationId)
    .where('userId', '=', userId)
    .executeTakeFirst();
  if (row === undefined) throw notFound('Organization not found');
  return row.role;
}

export async function assertManager(db: Db, organizationId: string, userId: string): Promise<void> {
  const role = await getCallerRole(db, organizationId, userId);
  if (!managesOrganization(role)) throw forbidden('Only an owner or admin of this organization can do this');
}

export async function listMembers(db: Db, organizationId: string): Promise<Member[]> {
  return db
    .selectFrom('organizationMembers as m')
    .innerJoin('users as u', 'u.id', 'm.userId')
    .select(['m.userId', 'u.email', 'u.name', 'm.role', 'm.createdAt as joinedAt'])
    .where('m.organizationId', '=', organizationId)
    .orderBy('m.createdAt')
    .execute();
}

/**
 * Adds a member (or changes nothing when already one) inside the caller's transaction, under a
 * per-organization lock so the 100-member limit holds under concurrent invitations.
 */
export async function addMemberWithin(tx: Db, input: { organizationId: string; userId: string; role: MemberRole }): Promise<void> {
  await lockMembers(tx, input.organizationId);
  const existing = await tx
    .selectFrom('organizationMembers')
    .select('role')
    .where('organizationId', '=', input.organizationId)
    .where('userId', '=', input.userId)
    .executeTakeFirst();
  if (existing !== undefined) return;
  await assertRoomForMember(tx, input.organizationId);
  await tx.insertInto('organizationMembers').values(input).execute();
}

export async function addMember(db: Db, input: { organizationId: string; userId: string; role: MemberRole }): Promise<void> {
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

/** Serializes member changes of one organization (limit and last-owner checks read then write). */
async function lockMembers(tx: Db, organizationId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${`waymark:members:${organizationId}`}))`.execute(tx);
}

async function countOwners(tx: Db, organizationId: string): Promise<number> {
  const { count } = await tx
    .selectFrom('organizationMembers')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('organizationId', '=', organizationId)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
  return count;
}

/** The member's row, read after locking the organization's members (the last-owner rule needs a stable count); 404 when absent. */
async function lockedMember(tx: Db, input: { organizationId: string; userId: string }): Promise<{ role: MemberRole }> {
  await lockMembers(tx, input.organizationId);
  const current = await tx
    .selectFrom('organizationMembers')
    .select('role')
    .where('organizationId', '=', input.organizationId)
    .where('userId', '=', input.userId)
    .executeTakeFirst();
  if (current === undefined) throw notFound('Member not found');
  return current;
}

/** Changes a member's role; the last owner cannot be demoted (409). Returns the previous role. */
export async function changeMemberRole(db: Db, input: { organizationId: string; userId: string; role: MemberRole }): Promise<MemberRole> {
  return db.transaction().execute(async (tx) => {
    const current = await lockedMember(tx, input);
    if (current.role === 'owner' && input.role !== 'owner' && (await countOwners(tx, input.organizationId)) <= 1) {
      throw conflict('The last owner of an organization cannot be demoted; make another member owner first');
    }
    await tx
      .updateTable('organizationMembers')
      .set({ role: input.role })
      .where('organizationId', '=', input.organizationId)
      .where('userId', '=', input.userId)
      .execute();
    return current.role;
  });
}

/** Removes a member; the last owner cannot be removed (409). */
export async function removeMember(db: Db, input: { organizationId: string; userId: string }): Promise<void> {
  await db.transaction().execute(async (tx) => {
    const current = await lockedMember(tx, input);
    if (current.role === 'owner' && (await countOwners(tx, input.organizationId)) <= 1) {
      throw conflict('The last owner of an organization cannot be removed; make another member owner first');
    }
    await tx.deleteFrom('organizationMembers').where('organizationId', '=', input.organizationId).where('userId', '=', input.userId).execute();
  });
}
