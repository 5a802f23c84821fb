import { recordAudit, userAudit } from '../audit/audit-log';
import type { Db } from '../db/database';
import { badRequest } from '../errors/app-error';
import { revokeForNewPassword, type NewPasswordRevocationDeps } from './new-password-revocation';
import { checkNewPassword, hashPassword, verifyPassword } from './passwords';
import { getUserById, updatePasswordHash } from './users';

/**
 * A signed-in user changes their password; every other session of theirs is revoked, and so is
 * any reset link still outstanding (revokeForNewPassword). The new password and its audit row
 * commit together, before the revocation: a row that cannot be written changes nothing.
 */
export async function changePassword(
  deps: { db: Db } & NewPasswordRevocationDeps,
  input: { userId: string; sessionId: string; currentPassword: string; newPassword: string; ipAddress: string },
): Promise<void> {
  const password = checkNewPassword(input.newPassword);
  const user = await getUserById(deps.db, input.userId);
  if (!(await verifyPassword(user.passwordHash, input.currentPassword))) {
    throw badRequest('Current password is incorrect').withReason('INVALID_PASSWORD');
  }
  const passwordHash = await hashPassword(password);
  await deps.db.transaction().execute(async (tx) => {
    await updatePasswordHash(tx, user.id, passwordHash);
    await recordAudit(tx, userAudit(user, { action: 'change-password', resource: 'user', resourceId: user.id, ipAddress: input.ipAddress }));
  });
  await revokeForNewPassword(deps, user, input.sessionId);
}
