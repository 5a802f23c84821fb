import { recordAudit, userAudit } from '../audit/audit-log';
import { generateToken, hashToken } from '../tokens/tokens';
import type { Db } from '../db/database';
import { badRequest } from '../errors/app-error';
import { invalidCredentials } from '../users/credentials';
import { checkNewPassword, hashPassword, verifyPassword } from '../users/passwords';
import { findUserByEmail, insertUser, normalizeEmail, toUser, type User } from '../users/users';
import { addMemberWithin, assertManager, assertRoomForMember, findMemberRole } from './organizations';
import { roleChangeRefusal, type MemberRole } from './roles';

/** Invitations work once and for 7 days (docs/auth.md). */
export const INVITATION_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;
export const INVITATION_TEMPLATE = 'auth-invitation';

export interface Invitation {
  id: string;
  email: string;
  role: MemberRole;
  expiresAt: Date;
}

export interface InvitationDeps {
  db: Db;
  publicUrl: string;
  /**
   * Keeps the invitation email in the system-email outbox inside the invitation's transaction
   * (SystemEmails.keep, emails/system-emails.ts); its run is started after the commit
   */
  keepEmail(
    tx: Db,
    input: {
      templateKey: string;
      to: string;
      data: { acceptUrl: string; organizationName: string; inviterEmail: string; role: MemberRole; expiresInDays: number };
      idempotencyKey: string;
    },
  ): Promise<{ start(): Promise<unknown> }>;
  now?: () => number;
}

/**
 * Invites an email into an organization (owners and admins only). Only an owner may invite
 * another owner. The token is stored as its digest; the email carries the raw token once. The
 * email is kept with the invitation (deps.keepEmail) and its run's start returned, so the route
 * answers without waiting for the provider; an email whose run cannot start now is started by the
 * relay later.
 */
export async function inviteMember(
  deps: InvitationDeps,
  input: { organizationId: string; inviter: { id: string; email: string }; email: string; role: MemberRole; ipAddress: string },
): Promise<{ invitation: Invitation; sending: Promise<unknown> }> {
  const inviterRole = await assertManager(deps.db, input.organizationId, input.inviter.id);
  if (!mayGrant(inviterRole, input.role)) throw badRequest('Only an owner can invite another owner');
  await assertRoomForMember(deps.db, input.organizationId);
  const organization = await deps.db.selectFrom('organizations').select('name').where('id', '=', input.organizationId).executeTakeFirstOrThrow();
  const token = generateToken();
  // the invitation, its audit row and its kept email commit together: a row that cannot be
  // written leaves no invitation and sends nothing (docs/security.md)
  const row = await deps.db.transaction().execute(async (tx) => {
    const created = await tx
      .insertInto('organizationInvitations')
      .values({
        organizationId: input.organizationId,
        email: normalizeEmail(input.email),
        role: input.role,
        tokenHash: hashToken(token),
        invitedBy: input.inviter.id,
        expiresAt: new Date((deps.now ?? Date.now)() + INVITATION_LIFETIME_MS),
      })
      .returning(['id', 'email', 'role', 'expiresAt'])
      .executeTakeFirstOrThrow();
    await recordAudit(
      tx,
      userAudit(input.inviter, {
        action: 'invite',
        resource: 'invitation',
        resourceId: created.id,
        ipAddress: input.ipAddress,
        detail: { organizationId: input.organizationId, email: created.email, role: created.role },
      }),
    );
    const email = await deps.keepEmail(tx, {
      templateKey: INVITATION_TEMPLATE,
      to: created.email,
      data: {
        acceptUrl: `${deps.publicUrl}/studio/accept-invite?token=${token}`,
        organizationName: organization.name,
        inviterEmail: input.inviter.email,
        role: created.role,
        expiresInDays: INVITATION_LIFETIME_MS / 86_400_000,
      },
      idempotencyKey: `invitation:${created.id}`,
    });
    return { created, email };
  });
  return { invitation: row.created, sending: row.email.start() };
}

/**
 * Spends an invitation: creates the account (or, for an email that already has one, checks its
 * password) and adds the membership, all in one transaction so a token is used exactly once. A new
 * account gets the invitation's role; an existing one keeps its own: a person's role is theirs,
 * not the team's, so joining a team never changes it (docs/auth.md).
 */
/** What an inviter may grant: what they may give a member (roleChangeRefusal): managers invite, only an owner an owner. */
function mayGrant(inviterRole: MemberRole | undefined, role: MemberRole): boolean {
  return inviterRole !== undefined && roleChangeRefusal(inviterRole, role, role) === undefined;
}

/**
 * An invitation is worth what its inviter may grant when it is accepted, not when it was sent: one
 * whose inviter has since left the team, lost the role that grants it, or was deleted, is spent
 * as an invalid token (docs/auth.md).
 */
async function inviterMayStillGrant(tx: Db, invitation: { organizationId: string; invitedBy: string | null; role: MemberRole }): Promise<boolean> {
  if (invitation.invitedBy === null) return false;
  return mayGrant(await findMemberRole(tx, invitation.organizationId, invitation.invitedBy), invitation.role);
}

export async function acceptInvitation(
  deps: InvitationDeps,
  input: { token: string; password: string; name?: string | undefined; ipAddress: string },
): Promise<User> {
  const now = new Date((deps.now ?? Date.now)());
  const user = await deps.db.transaction().execute(async (tx) => {
    const invitation = await tx
      .updateTable('organizationInvitations')
      .set({ acceptedAt: now })
      .where('tokenHash', '=', hashToken(input.token))
      .where('acceptedAt', 'is', null)
      .where('expiresAt', '>', now)
      .returning(['id', 'organizationId', 'email', 'role', 'invitedBy'])
      .executeTakeFirst();
    if (invitation === undefined || !(await inviterMayStillGrant(tx, invitation))) throw badRequest('Invalid or expired token').withReason('INVALID_TOKEN');
    let account = await findUserByEmail(tx, invitation.email);
    if (account === undefined) {
      const password = checkNewPassword(input.password);
      account = await insertUser(tx, {
        email: invitation.email,
        name: input.name ?? null,
        passwordHash: await hashPassword(password),
        role: 'member',
        accessRole: invitation.role,
      });
    } else if (!(await verifyPassword(account.passwordHash, input.password))) {
      // an existing account joins only with its own password: the token alone must not take it over
      throw invalidCredentials();
    }
    await addMemberWithin(tx, { organizationId: invitation.organizationId, userId: account.id });
    await recordAudit(
      tx,
      userAudit(account, {
        action: 'accept-invitation',
        resource: 'invitation',
        resourceId: invitation.id,
        ipAddress: input.ipAddress,
        detail: { organizationId: invitation.organizationId, role: account.accessRole },
      }),
    );
    return account;
  });
  return toUser(user);
}
