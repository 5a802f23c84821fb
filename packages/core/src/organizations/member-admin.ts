import { recordAudit, userAudit } from '../audit/audit-log';
import type { Db } from '../db/database';
import type { OrganizationRow } from '../db/schema';
import { forbidden } from '../errors/app-error';
import { findUserById } from '../users/users';
import { assertManager, changeMemberRoleWithin, createOrganizationWithin, findMemberRole, listMemberships, removeMemberWithin } from './organizations';
import { roleChangeRefusal, type MemberRole } from './roles';

interface Caller {
  id: string;
  email: string;
  ipAddress: string;
}

/**
 * Each change below and its audit row commit in one transaction: a row that cannot be written
 * undoes the change (docs/security.md).
 */

/**
 * Only owners create organizations (up to the installation limit): the creator joins it, and
 * their role, which is the person's and not the team's, does not change. An owner removed from
 * every team creates none: the role is still theirs, but a team of their own would give them back
 * the data that no other owner could then take from them.
 */
export async function createOrganizationAs(db: Db, caller: Caller, input: { name: string; slug?: string | undefined }): Promise<OrganizationRow> {
  const user = await findUserById(db, caller.id);
  if (user?.accessRole !== 'owner') throw forbidden('Only an owner can create organizations');
  if ((await listMemberships(db, caller.id)).length === 0) throw forbidden('Only an owner who belongs to an organization can create one');
  return db.transaction().execute(async (tx) => {
    const organization = await createOrganizationWithin(tx, { ...input, ownerId: caller.id });
    await recordAudit(
      tx,
      userAudit(caller, {
        action: 'create',
        resource: 'organization',
        resourceId: organization.id,
        ipAddress: caller.ipAddress,
        detail: { name: organization.name, slug: organization.slug },
      }),
    );
    return organization;
  });
}

/** Changes a person's role, which is the same in every team they belong to: granted from above (`roleChangeRefusal`). */
export async function changeRoleAs(db: Db, caller: Caller, input: { organizationId: string; userId: string; role: MemberRole }): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await assertMayChange(tx, caller, input, input.role);
    const previous = await changeMemberRoleWithin(tx, input);
    await recordAudit(
      tx,
      userAudit(caller, {
        action: 'update',
        resource: 'member',
        resourceId: input.userId,
        ipAddress: caller.ipAddress,
        detail: { organizationId: input.organizationId, from: previous, to: input.role },
      }),
    );
  });
}

/**
 * Removes a person from one team; only an owner removes an owner. Answers whether it was their last
 * team: the caller then ends their sessions (docs/auth.md), since they may do nothing any more.
 */
export async function removeMemberAs(db: Db, caller: Caller, input: { organizationId: string; userId: string }): Promise<{ lastTeam: boolean }> {
  return db.transaction().execute(async (tx) => {
    await assertMayChange(tx, caller, input, undefined);
    const { organizationsLeft } = await removeMemberWithin(tx, input);
    await recordAudit(
      tx,
      userAudit(caller, {
        action: 'delete',
        resource: 'member',
        resourceId: input.userId,
        ipAddress: caller.ipAddress,
        detail: { organizationId: input.organizationId },
      }),
    );
    return { lastTeam: organizationsLeft === 0 };
  });
}

/** 403 unless the caller manages the organization and may touch the target's role; 404 when either is not in it. */
async function assertMayChange(db: Db, caller: Caller, input: { organizationId: string; userId: string }, next: MemberRole | undefined): Promise<void> {
  const callerRole = await assertManager(db, input.organizationId, caller.id);
  const targetRole = await findMemberRole(db, input.organizationId, input.userId);
  // an unknown member is the core function's 404, after the caller is known to manage the organization
  if (targetRole === undefined) return;
  const refusal = roleChangeRefusal(callerRole, targetRole, next);
  if (refusal !== undefined) throw forbidden(refusal);
}
