import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../db/database';
import { notFound } from '../errors/app-error';
import { addMemberWithin, createOrganizationWithin } from './organizations';
import { checkNewPassword, hashPassword } from '../users/passwords';
import { findUserByEmail, insertUser, toUser, type User } from '../users/users';

/** 18 random bytes as base64url: 24 characters, inside the 8–128 password bounds. */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}

export const DEFAULT_ORGANIZATION = { name: 'Default', slug: 'default' } as const;

export interface CreatedAdmin {
  user: User;
  /** set when no password was given: shown once to whoever ran the command */
  generatedPassword: string | undefined;
}

/**
 * An administrator made from the server (CLI or boot), never over HTTP: an owner of the
 * installation. The first one creates the default organization; later ones join the oldest
 * organization, so a recovery admin can manage the team.
 */
export async function createAdmin(db: Db, input: { email: string; password?: string | undefined; name?: string | undefined }): Promise<CreatedAdmin> {
  const password = checkNewPassword(input.password ?? generatePassword());
  const generatedPassword = input.password === undefined ? password : undefined;
  const passwordHash = await hashPassword(password);
  const run = async (tx: Db) => {
    const row = await insertUser(tx, { email: input.email, name: input.name ?? null, passwordHash, role: 'admin', accessRole: 'owner' });
    // the lock organizations are created under: two first admins made at once would otherwise both
    // find no organization and the second would fail on the default slug
    await sql`select pg_advisory_xact_lock(hashtext('waymark:organizations'))`.execute(tx);
    const oldest = await tx.selectFrom('organizations').select('id').orderBy('createdAt').limit(1).executeTakeFirst();
    if (oldest === undefined) await createOrganizationWithin(tx, { ...DEFAULT_ORGANIZATION, ownerId: row.id });
    else await addMemberWithin(tx, { organizationId: oldest.id, userId: row.id });
    return { user: toUser(row), generatedPassword };
  };
  // the user and their membership are made together (or not at all); inside a caller's transaction, join it
  return db.isTransaction ? run(db) : db.transaction().execute(run);
}

/** Sets a new password for an existing user (the caller revokes the user's sessions). */
export async function resetUserPassword(db: Db, input: { email: string; password?: string | undefined }): Promise<CreatedAdmin> {
  const row = await findUserByEmail(db, input.email);
  if (row === undefined) throw notFound(`No user with email ${input.email}`);
  const password = checkNewPassword(input.password ?? generatePassword());
  const generatedPassword = input.password === undefined ? password : undefined;
  await db
    .updateTable('users')
    .set({ passwordHash: await hashPassword(password), updatedAt: sql<Date>`now()` })
    .where('id', '=', row.id)
    .execute();
  return { user: toUser(row), generatedPassword };
}
