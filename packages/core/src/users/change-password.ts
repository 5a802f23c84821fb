import { recordAudit, userAudit } from '../audit/audit-log';
import type { ResetTokenStore } from '../auth/sessions/reset-token-store';
import type { SessionManager } from '../auth/sessions/session-manager';
import type { Db } from '../db/database';
import { badRequest } from '../errors/app-error';
import { checkNewPassword, hashPassword, verifyPassword } from './passwords';
import { getUserById, updatePasswordHash } from './users';

/**
 * A signed-in user changes their password; every other session of theirs is revoked, and so is
 * any reset link still outstanding (it was asked for the old password).
 */
export async function changePassword(
  deps: { db: Db; sessions: SessionManager; resetTokens: Pick<ResetTokenStore, 'revokeUser'> },
  input: { userId: string; sessionId: string; currentPassword: string; newPassword: string; ipAddress: string },
): Promise<void> {
  const password = checkNewPassword(input.newPassword);
  const user = await getUserById(deps.db, input.userId);
  if (!(await verifyPassword(user.passwordHash, input.currentPassword))) {
    throw badRequest('Current password is incorrect').withReason('INVALID_PASSWORD');
  }
  await updatePasswordHash(deps.db, user.id, await hashPassword(password));
  await deps.sessions.invalidateOthers(user.id, input.sessionId);
  await deps.resetTokens.revokeUser(user.id);
  await recordAudit(deps.db, userAudit(user, { action: 'change-password', resource: 'user', resourceId: user.id, ipAddress: input.ipAddress }));
}
