import { recordAudit, userAudit } from '../audit/audit-log';
import type { ResetTokenStore } from '../auth/sessions/reset-token-store';
import type { SessionManager } from '../auth/sessions/session-manager';
import { generateToken, hashToken } from '../tokens/tokens';
import type { Db } from '../db/database';
import { badRequest } from '../errors/app-error';
import { revokeForNewPassword } from './new-password-revocation';
import { checkNewPassword, hashPassword } from './passwords';
import { findUserByEmail, updatePasswordHash } from './users';
import type { SignInFailures } from './sign-in-failures';

/** Reset tokens work once and for 15 minutes (docs/auth.md). */
export const RESET_TOKEN_LIFETIME_MS = 15 * 60 * 1000;
export const PASSWORD_RESET_TEMPLATE = 'auth-password-reset';

export const invalidToken = () => badRequest('Invalid or expired token').withReason('INVALID_TOKEN');

export interface PasswordResetDeps {
  db: Db;
  resetTokens: ResetTokenStore;
  signInFailures: SignInFailures;
  sessions: SessionManager;
  /** `${API_PUBLIC_URL}` without a trailing slash: the link goes to the studio's reset page */
  publicUrl: string;
  /**
   * Keeps the `auth-password-reset` email in the system-email outbox inside the token's
   * transaction (SystemEmails.keep, emails/system-emails.ts); its run is started after the commit
   */
  keepEmail(
    tx: Db,
    input: {
      templateKey: string;
      to: string;
      data: { resetUrl: string; expiresInMinutes: number };
      idempotencyKey: string;
      userId: string;
    },
  ): Promise<{ start(): Promise<unknown> }>;
  now?: () => number;
}

/**
 * Starts a reset for a known email: a token (stored as its SHA-256 digest, and the user's only
 * live one) and an email with the link. Unknown emails do nothing. The route runs it after its
 * answer, the same for every address, so the timing reveals nothing.
 */
export async function requestPasswordReset(
  deps: PasswordResetDeps,
  input: { email: string; ipAddress: string },
): Promise<{ sending: Promise<unknown> } | undefined> {
  const user = await findUserByEmail(deps.db, input.email);
  if (user === undefined) return undefined;
  const now = (deps.now ?? Date.now)();
  const token = generateToken();
  // the audit row and the kept email first, in a transaction that commits once the token is
  // stored: a row that cannot be written stores no token and sends nothing (a commit failing after
  // the save leaves a token nobody was sent); once committed the email outlives this process
  const kept = await deps.db.transaction().execute(async (tx) => {
    await recordAudit(tx, userAudit(user, { action: 'request-password-reset', resource: 'user', resourceId: user.id, ipAddress: input.ipAddress }));
    const email = await deps.keepEmail(tx, {
      templateKey: PASSWORD_RESET_TEMPLATE,
      to: user.email,
      userId: user.id,
      data: { resetUrl: `${deps.publicUrl}/studio/reset-password?token=${token}`, expiresInMinutes: RESET_TOKEN_LIFETIME_MS / 60_000 },
      idempotencyKey: `password-reset:${hashToken(token)}`,
    });
    await deps.resetTokens.save(hashToken(token), { userId: user.id, expiresAt: now + RESET_TOKEN_LIFETIME_MS });
    return email;
  });
  return { sending: kept.start() };
}

/**
 * Spends a reset token (once, within 15 minutes), sets the password and revokes every session of
 * the user. The password and its audit row commit together, before the revocation: a row that
 * cannot be written leaves the old password (the token is spent all the same).
 */
export async function resetPassword(deps: PasswordResetDeps, input: { token: string; newPassword: string; ipAddress: string }): Promise<void> {
  const password = checkNewPassword(input.newPassword);
  const stored = await deps.resetTokens.take(hashToken(input.token));
  if (stored === undefined) throw invalidToken();
  if (stored.expiresAt <= (deps.now ?? Date.now)()) throw invalidToken();
  const passwordHash = await hashPassword(password);
  const user = await deps.db.transaction().execute(async (tx) => {
    const row = await tx.selectFrom('users').select(['id', 'email']).where('id', '=', stored.userId).executeTakeFirst();
    if (row === undefined) throw invalidToken();
    await updatePasswordHash(tx, row.id, passwordHash);
    await recordAudit(tx, userAudit(row, { action: 'reset-password', resource: 'user', resourceId: row.id, ipAddress: input.ipAddress }));
    return row;
  });
  await revokeForNewPassword(deps, user);
}
