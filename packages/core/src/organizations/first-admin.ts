import { sql } from 'kysely';
import type { Db } from '../db/database';
import { createAdmin, type CreatedAdmin } from './admin-accounts';

/**
 * STUDIO_ADMIN_EMAIL at boot: when the user table is empty, that administrator is created (with
 * STUDIO_ADMIN_PASSWORD, or a generated password the caller prints once). A lock makes two API
 * instances booting together create it once.
 */
export async function ensureFirstAdmin(db: Db, studioAdmin: { email: string | undefined; password: string | undefined }): Promise<CreatedAdmin | undefined> {
  const { email, password } = studioAdmin;
  if (email === undefined) return undefined;
  return db.transaction().execute(async (tx) => {
    await sql`select pg_advisory_xact_lock(hashtext('waymark:first-admin'))`.execute(tx);
    const anyUser = await tx.selectFrom('users').select('id').limit(1).executeTakeFirst();
    if (anyUser !== undefined) return undefined;
    return createAdmin(tx, { email, password });
  });
}
