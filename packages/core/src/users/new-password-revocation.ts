import type { ResetTokenStore } from '../auth/sessions/reset-token-store';
import type { SessionManager } from '../auth/sessions/session-manager';
import type { SignInFailures } from './sign-in-failures';

export interface NewPasswordRevocationDeps {
  sessions: Pick<SessionManager, 'invalidateUser' | 'invalidateOthers'>;
  resetTokens: Pick<ResetTokenStore, 'revokeUser'>;
  signInFailures: Pick<SignInFailures, 'clear'>;
}

/**
 * What a new password ends, however it was set (a change while signed in, a reset link, or
 * `waymark admin reset-password`): every session of the person except `keepSessionId` (the one
 * that made the change), and any reset link still outstanding, which was asked for under the old
 * password (docs/auth.md). It also reopens the account's sign-in if failed guesses closed it: the
 * person proved the mailbox or the password. One rule, so no way of setting a password forgets a
 * part of it.
 */
export async function revokeForNewPassword(deps: NewPasswordRevocationDeps, user: { id: string; email: string }, keepSessionId?: string): Promise<void> {
  if (keepSessionId === undefined) await deps.sessions.invalidateUser(user.id);
  else await deps.sessions.invalidateOthers(user.id, keepSessionId);
  await deps.resetTokens.revokeUser(user.id);
  await deps.signInFailures.clear(user.email);
}
