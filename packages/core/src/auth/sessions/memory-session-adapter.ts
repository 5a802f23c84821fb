import type { DatabaseSession, DatabaseUser } from 'lucia';
import type { Db } from '../../db/database';
import { sessionWithUser, STORE_GRACE_MS, toDatabaseSession, type SessionAdapter, type StoredSession } from './session-adapter';
import { hashToken } from '../../tokens/tokens';

/**
 * Sessions in this process's memory, for a development API that found no Redis at boot
 * (docs/auth.md): one instance only, everything lost on restart, and `waymark admin
 * reset-password` cannot revoke them. Keyed by the SHA-256 of the session id like the Redis
 * store, so both behave the same to lucia and to the session manager.
 */
export class MemorySessionAdapter implements SessionAdapter {
  private readonly sessions = new Map<string, StoredSession>();
  private readonly byUser = new Map<string, Set<string>>();

  constructor(private readonly deps: { db: Db }) {}

  async getSession(sessionId: string): Promise<DatabaseSession | null> {
    const stored = this.sessions.get(hashToken(sessionId));
    return stored === undefined ? null : toDatabaseSession(sessionId, stored);
  }

  async getSessionAndUser(sessionId: string): Promise<[DatabaseSession | null, DatabaseUser | null]> {
    return sessionWithUser(this.deps.db, await this.getSession(sessionId));
  }

  /** Ids are stored hashed, so listed sessions carry the hash as their id, as in the Redis store. */
  async getUserSessions(userId: string): Promise<DatabaseSession[]> {
    return [...(this.byUser.get(userId) ?? [])].flatMap((hash) => {
      const stored = this.sessions.get(hash);
      return stored === undefined ? [] : [toDatabaseSession(hash, stored)];
    });
  }

  async setSession(session: DatabaseSession): Promise<void> {
    this.write(hashToken(session.id), { userId: session.userId, expiresAt: session.expiresAt.getTime() });
  }

  async updateSessionExpiration(sessionId: string, expiresAt: Date): Promise<void> {
    const hash = hashToken(sessionId);
    const stored = this.sessions.get(hash);
    if (stored !== undefined) this.write(hash, { userId: stored.userId, expiresAt: expiresAt.getTime() });
  }

  async deleteSession(sessionId: string): Promise<void> {
    this.remove(hashToken(sessionId));
  }

  async deleteUserSessions(userId: string): Promise<void> {
    for (const hash of this.byUser.get(userId) ?? []) this.sessions.delete(hash);
    this.byUser.delete(userId);
  }

  /** What Redis does with the key TTL (on the wall clock too): a session is dropped a minute after it ended. */
  async deleteExpiredSessions(): Promise<void> {
    const before = Date.now() - STORE_GRACE_MS;
    for (const [hash, stored] of this.sessions) if (stored.expiresAt < before) this.remove(hash);
  }

  private write(hash: string, stored: StoredSession): void {
    // sweeping on write keeps a long-running development API from growing without bound
    void this.deleteExpiredSessions();
    this.sessions.set(hash, stored);
    const hashes = this.byUser.get(stored.userId) ?? new Set<string>();
    hashes.add(hash);
    this.byUser.set(stored.userId, hashes);
  }

  private remove(hash: string): void {
    const stored = this.sessions.get(hash);
    if (stored === undefined) return;
    this.sessions.delete(hash);
    const hashes = this.byUser.get(stored.userId);
    hashes?.delete(hash);
    if (hashes?.size === 0) this.byUser.delete(stored.userId);
  }
}
