import type { Db } from '../db/database';

/**
 * Whether anyone can sign in yet. With no users the studio shows only how to create the first
 * admin from the server (there is no sign-up or create-admin form over HTTP).
 */
export async function hasAnyUser(db: Db): Promise<boolean> {
  const row = await db.selectFrom('users').select('id').limit(1).executeTakeFirst();
  return row !== undefined;
}
