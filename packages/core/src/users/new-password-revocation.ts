import type { ResetTokenStore } from '../auth/sessions/reset-token-store';
import type { SessionManager } from '../auth/sessions/session-manager';

export interface NewPasswordRevocationDeps {
  sessions: Pick<SessionManager, 'invalidateUser' | 'invalidateOthers'>;
  resetTokens: Pick<ResetTokenStore, 'revokeUser'>;
}

/**
 * What a new password ends, however it was set (a change while signed in, a reset link, or
 * `waymark admin reset-password`): every session of the person except `keepSessionId` (the one
 * that made the change), and any reset link still outstanding, which was asked for under the old
 * password (docs/auth.md). One rule, so no way of setting a password forgets a part of it.
 */
export async function revokeForNewPassword(deps: NewPasswordRevocationDeps, userId: string, keepSessionId?: string): Promise<void> {
  if (keepSessionId === undefined) await deps.sessions.invalidateUser(userId);
  else await deps.sessions.invalidateOthers(userId, keepSessionId);
  await deps.resetTokens.revokeUser(userId);
}
