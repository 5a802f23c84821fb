import { recordAudit, userAudit } from '../audit/audit-log';
import type { ActiveSession, SessionManager } from '../auth/sessions/session-manager';
import type { Db } from '../db/database';
import { AppError, isAppError } from '../errors/app-error';
import { verifyCredentials } from './credentials';
import type { SignInFailures } from './sign-in-failures';
import type { User } from './users';

export interface SignInDeps {
  db: Db;
  sessions: SessionManager;
  signInFailures: SignInFailures;
}

/**
 * Email + password → a new session; both outcomes are audited (a failure under the email tried).
 * An account that failed SIGN_IN_FAILURES_MAX times in the window answers 429 until it ends, its
 * password unchecked (sign-in-failures.ts); a success clears the count.
 */
export async function signIn(deps: SignInDeps, input: { email: string; password: string; ipAddress: string }): Promise<{ user: User; session: ActiveSession }> {
  const lockedMs = await deps.signInFailures.lockedForMs(input.email);
  if (lockedMs > 0) {
    const minutes = Math.ceil(lockedMs / 60_000);
    throw new AppError(
      'rate_limited',
      `Too many failed sign-ins for this account; try again in ${minutes} minute${minutes === 1 ? '' : 's'}, or reset the password`,
    ).withRetryAfter(lockedMs / 1000);
  }
  let user: User;
  try {
    user = await verifyCredentials(deps.db, input.email, input.password);
  } catch (error) {
    if (isAppError(error) && error.status === 401) {
      await deps.signInFailures.recordFailure(input.email);
      await recordAudit(deps.db, {
        actor: input.email.trim().toLowerCase(),
        actorKeyId: null,
        actorType: 'user',
        action: 'sign-in-failed',
        resource: 'user',
        resourceId: null,
        detail: null,
        ipAddress: input.ipAddress,
      });
    }
    throw error;
  }
  // the audit row first, in a transaction that commits once the session exists: a row that
  // cannot be written makes no session (a commit failing after it leaves a session whose id
  // nobody was given)
  const session = await deps.db.transaction().execute(async (tx) => {
    await recordAudit(tx, userAudit(user, { action: 'sign-in', resource: 'user', resourceId: user.id, ipAddress: input.ipAddress }));
    return deps.sessions.create(user.id);
  });
  await deps.signInFailures.clear(input.email);
  return { user, session };
}
