import type { Adapter, DatabaseSession, DatabaseUser } from 'lucia';
import type { Db } from '../../db/database';

/** What a session store holds per session: no raw session id, no password, nothing but these two fields. */
export interface StoredSession {
  userId: string;
  expiresAt: number;
}

/**
 * lucia's adapter plus the one read the hot path needs: the session alone, without its user (a
 * cookie-authenticated request loads the user's memberships itself). Redis in every shared
 * deployment; memory only for a development API that found no Redis at boot (docs/auth.md).
 */
export interface SessionAdapter extends Adapter {
  getSession(sessionId: string): Promise<DatabaseSession | null>;
}

export const toDatabaseSession = (id: string, stored: StoredSession): DatabaseSession => ({
  id,
  userId: stored.userId,
  expiresAt: new Date(stored.expiresAt),
  attributes: {},
});

/** lucia's getSessionAndUser over any store: users live in PostgreSQL, so a deleted user's session is no session. */
export async function sessionWithUser(db: Db, session: DatabaseSession | null): Promise<[DatabaseSession | null, DatabaseUser | null]> {
  if (session === null) return [null, null];
  const user = await db.selectFrom('users').select('id').where('id', '=', session.userId).executeTakeFirst();
  return user === undefined ? [null, null] : [session, { id: user.id, attributes: {} }];
}

/**
 * How long a stored session outlives its expiry: validation (with its injectable clock), not the
 * store, decides when a session ends; the store drops it on its own a minute later.
 */
export const STORE_GRACE_MS = 60_000;
