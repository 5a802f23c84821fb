import type { Db } from '../db/database';
import { unauthorized } from '../errors/app-error';
import { decoyPasswordHash, verifyPassword } from './passwords';
import { findUserByEmail, type User, toUser } from './users';

export const invalidCredentials = () => unauthorized('Invalid email or password').withReason('INVALID_EMAIL_OR_PASSWORD');

/**
 * The user behind an email and password, or a 401. An unknown email still costs one argon2id
 * verification (against a decoy hash), so the answer and its timing do not reveal accounts.
 */
export async function verifyCredentials(db: Db, email: string, password: string): Promise<User> {
  const row = await findUserByEmail(db, email);
  const valid = await verifyPassword(row?.passwordHash ?? (await decoyPasswordHash()), password);
  if (row === undefined || !valid) throw invalidCredentials();
  return toUser(row);
}
