import { recordAudit, userAudit } from '../audit/audit-log';
import type { Db } from '../db/database';
import type { OrganizationRow } from '../db/schema';
import { forbidden } from '../errors/app-error';
import { assertManager, changeMemberRole, createOrganization, listMemberships, removeMember } from './organizations';
import { managesOrganization, type MemberRole } from './roles';

interface Caller {
  id: string;
  email: string;
  ipAddress: string;
}

/** Owners and admins of any organization may create another (up to the installation limit). */
export async function createOrganizationAs(db: Db, caller: Caller, input: { name: string; slug?: string | undefined }): Promise<OrganizationRow> {
  const memberships = await listMemberships(db, caller.id);
  if (!memberships.some((membership) => managesOrganization(membership.role))) {
    throw forbidden('Only an owner or admin of an organization can create organizations');
  }
  const organization = await createOrganization(db, { ...input, ownerId: caller.id });
  await recordAudit(
    db,
    userAudit(caller, {
      action: 'create',
      resource: 'organization',
      resourceId: organization.id,
      ipAddress: caller.ipAddress,
      detail: { name: organization.name, slug: organization.slug },
    }),
  );
  return organization;
}

export async function changeRoleAs(db: Db, caller: Caller, input: { organizationId: string; userId: string; role: MemberRole }): Promise<void> {
  await assertManager(db, input.organizationId, caller.id);
  const previous = await changeMemberRole(db, input);
  await recordAudit(
    db,
    userAudit(caller, {
      action: 'update',
      resource: 'member',
      resourceId: input.userId,
      ipAddress: caller.ipAddress,
      detail: { organizationId: input.organizationId, from: previous, to: input.role },
    }),
  );
}

export async function removeMemberAs(db: Db, caller: Caller, input: { organizationId: string; userId: string }): Promise<void> {
  await assertManager(db, input.organizationId, caller.id);
  await removeMember(db, input);
  await recordAudit(
    db,
    userAudit(caller, {
      action: 'delete',
      resource: 'member',
      resourceId: input.userId,
      ipAddress: caller.ipAddress,
      detail: { organizationId: input.organizationId },
    }),
  );
}
