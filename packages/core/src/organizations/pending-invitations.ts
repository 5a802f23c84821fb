import { recordAudit, userAudit } from '../audit/audit-log';
import type { Db } from '../db/database';
import { notFound } from '../errors/app-error';
import { assertManager } from './organizations';
import type { MemberRole } from './roles';

export interface PendingInvitation {
  id: string;
  email: string;
  role: MemberRole;
  /** who sent it; null when that account was deleted since */
  invitedBy: string | null;
  createdAt: Date;
  expiresAt: Date;
}

/**
 * Invitations of the organization that can still be accepted (not used, not expired), newest
 * first. Owners and admins only: the list names people who are not members yet.
 */
export async function listPendingInvitations(
  deps: { db: Db; now?: () => number },
  input: { organizationId: string; callerId: string },
): Promise<PendingInvitation[]> {
  await assertManager(deps.db, input.organizationId, input.callerId);
  return deps.db
    .selectFrom('organizationInvitations as i')
    .leftJoin('users as u', 'u.id', 'i.invitedBy')
    .select(['i.id', 'i.email', 'i.role', 'u.email as invitedBy', 'i.createdAt', 'i.expiresAt'])
    .where('i.organizationId', '=', input.organizationId)
    .where('i.acceptedAt', 'is', null)
    .where('i.expiresAt', '>', new Date((deps.now ?? Date.now)()))
    .orderBy('i.createdAt', 'desc')
    .orderBy('i.id')
    .execute();
}

/**
 * Withdraws an invitation that was not accepted yet: its link stops working at once (the row is
 * deleted, so the token's digest matches nothing). 404 when it is unknown, used, or of another organization.
 */
export async function revokeInvitation(
  db: Db,
  caller: { id: string; email: string; ipAddress: string },
  input: { organizationId: string; invitationId: string },
): Promise<void> {
  await assertManager(db, input.organizationId, caller.id);
  // the revocation and its audit row commit together: a row that cannot be written keeps the invitation (docs/security.md)
  await db.transaction().execute(async (tx) => {
    const revoked = await tx
      .deleteFrom('organizationInvitations')
      .where('id', '=', input.invitationId)
      .where('organizationId', '=', input.organizationId)
      .where('acceptedAt', 'is', null)
      .returning(['email', 'role'])
      .executeTakeFirst();
    if (revoked === undefined) throw notFound('Invitation not found');
    await recordAudit(
      tx,
      userAudit(caller, {
        action: 'revoke',
        resource: 'invitation',
        resourceId: input.invitationId,
        ipAddress: caller.ipAddress,
        detail: { organizationId: input.organizationId, email: revoked.email, role: revoked.role },
      }),
    );
  });
}
