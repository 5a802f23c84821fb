import type { Redis } from 'ioredis';
import type { DatabaseSession, DatabaseUser } from 'lucia';
import type { Db } from '../../db/database';
import { isAppError, unavailable } from '../../errors/app-error';
import { sessionWithUser, STORE_GRACE_MS, toDatabaseSession, type SessionAdapter, type StoredSession } from './session-adapter';
import { hashToken } from '../../tokens/tokens';

/**
 * Runs a Redis operation of the auth store; a Redis that is down becomes a 503 with a clear
 * message instead of a driver error. An API that booted with Redis keeps using it: falling back
 * to memory mid-flight would sign everyone out and split sessions between instances, so sign-in
 * fails closed until Redis is back (docs/auth.md).
 */
export async function authStore<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (isAppError(error)) throw error;
    throw unavailable('Sign-in is unavailable: the session store (Redis at CACHE_URL) is unreachable');
  }
}

const sessionKey = (sessionId: string) => `waymark:session:${hashToken(sessionId)}`;
const userSessionsKey = (userId: string) => `waymark:user-sessions:${userId}`;

/**
 * The lucia v3 adapter of Waymark: sessions in Redis (shared by every API instance, surviving an
 * API restart, expiring by themselves through the key TTL), users in PostgreSQL. Keys carry the
 * SHA-256 of the session id, so reading Redis does not yield a usable cookie.
 */
export class RedisSessionAdapter implements SessionAdapter {
  constructor(private readonly deps: { redis: Redis; db: Db }) {}

  /** The session alone (one GET): the hot path of every cookie-authenticated request. */
  async getSession(sessionId: string): Promise<DatabaseSession | null> {
    const raw = await authStore(() => this.deps.redis.get(sessionKey(sessionId)));
    return raw === null ? null : toDatabaseSession(sessionId, JSON.parse(raw) as StoredSession);
  }

  async getSessionAndUser(sessionId: string): Promise<[DatabaseSession | null, DatabaseUser | null]> {
    return sessionWithUser(this.deps.db, await this.getSession(sessionId));
  }

  /** Ids are stored hashed, so listed sessions carry the hash as their id (enough to count or delete). */
  async getUserSessions(userId: string): Promise<DatabaseSession[]> {
    const hashes = await authStore(() => this.deps.redis.smembers(userSessionsKey(userId)));
    if (hashes.length === 0) return [];
    const values = await authStore(() => this.deps.redis.mget(hashes.map((hash) => `waymark:session:${hash}`)));
    return values.flatMap((raw, index) => {
      return raw === null ? [] : [toDatabaseSession(hashes[index] ?? '', JSON.parse(raw) as StoredSession)];
    });
  }

  async setSession(session: DatabaseSession): Promise<void> {
    await this.write(session.id, { userId: session.userId, expiresAt: session.expiresAt.getTime() });
  }

  async updateSessionExpiration(sessionId: string, expiresAt: Date): Promise<void> {
    const session = await this.getSession(sessionId);
    if (session === null) return;
    await this.write(sessionId, { userId: session.userId, expiresAt: expiresAt.getTime() });
  }

  async deleteSession(sessionId: string): Promise<void> {
    const key = sessionKey(sessionId);
    const raw = await authStore(() => this.deps.redis.getdel(key));
    if (raw === null) return;
    const stored = JSON.parse(raw) as StoredSession;
    await authStore(() => this.deps.redis.srem(userSessionsKey(stored.userId), hashToken(sessionId)));
  }

  async deleteUserSessions(userId: string): Promise<void> {
    const indexKey = userSessionsKey(userId);
    const hashes = await authStore(() => this.deps.redis.smembers(indexKey));
    await authStore(() =>
      this.deps.redis
        .multi()
        .del(...hashes.map((hash) => `waymark:session:${hash}`), indexKey)
        .exec(),
    );
  }

  /** Redis expires session keys itself (TTL = expiry); nothing to sweep. */
  async deleteExpiredSessions(): Promise<void> {}

  private async write(sessionId: string, stored: StoredSession): Promise<void> {
    // The per-user index lives as long as the latest written session; every sign-in and daily
    // refresh extends it.
    const ttlMs = Math.max(stored.expiresAt - Date.now(), 0) + STORE_GRACE_MS;
    const indexKey = userSessionsKey(stored.userId);
    await authStore(() =>
      this.deps.redis
        .multi()
        .set(sessionKey(sessionId), JSON.stringify(stored), 'PX', ttlMs)
        .sadd(indexKey, hashToken(sessionId))
        .pexpire(indexKey, ttlMs)
        .exec(),
    );
  }
}
