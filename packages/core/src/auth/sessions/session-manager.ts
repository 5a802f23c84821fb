import { Lucia, TimeSpan, type Cookie } from 'lucia';
import type { SessionAdapter } from './session-adapter';
import { generateToken } from '../../tokens/tokens';

export const SESSION_COOKIE_NAME = 'waymark_session';
/** Sessions last 7 days and are refreshed daily (docs/auth.md). */
export const SESSION_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;
export const SESSION_REFRESH_AFTER_MS = 24 * 60 * 60 * 1000;

export interface ActiveSession {
  id: string;
  userId: string;
  expiresAt: Date;
  /** true when this validation pushed the expiry: the cookie must be sent again */
  refreshed: boolean;
}

export interface SessionManagerOptions {
  adapter: SessionAdapter;
  /** adds `Secure` to the cookie (production) */
  secureCookie: boolean;
  now?: () => number;
  /** how long a validated session is trusted without asking Redis again (default 5 s) */
  cacheTtlMs?: number;
}

interface CachedSession {
  userId: string;
  expiresAt: Date;
  checkedAt: number;
}

const CACHE_LIMIT = 10_000;

/**
 * The session lifecycle: lucia v3 creates and invalidates sessions and writes the cookie; this
 * class validates. lucia's own `validateSession` refreshes at half the lifetime and reads the
 * wall clock; Waymark refreshes once a day and takes its clock from the caller, so the 7-day
 * expiry and the daily refresh can be tested without waiting.
 */
export class SessionManager {
  private readonly lucia: Lucia;
  private readonly adapter: SessionAdapter;
  private readonly now: () => number;
  /**
   * Sessions validated in the last few seconds, so a busy studio costs no Redis round trip per
   * request (keys are cached for 60 s the same way). Revocations made here apply at once; made on
   * another instance (sign-out there, a reset, the CLI), within the TTL.
   */
  private readonly recent = new Map<string, CachedSession>();
  private readonly cacheTtlMs: number;

  constructor(options: SessionManagerOptions) {
    this.adapter = options.adapter;
    this.now = options.now ?? Date.now;
    this.cacheTtlMs = options.cacheTtlMs ?? 5_000;
    this.lucia = new Lucia(options.adapter, {
      sessionExpiresIn: new TimeSpan(SESSION_LIFETIME_MS / 1000, 's'),
      sessionCookie: { name: SESSION_COOKIE_NAME, expires: true, attributes: { sameSite: 'lax', path: '/', secure: options.secureCookie } },
    });
  }

  /** A new session of 7 days. */
  async create(userId: string): Promise<ActiveSession> {
    const session = await this.lucia.createSession(userId, {}, { sessionId: generateToken() });
    // lucia dates the expiry from the wall clock; align it with the injected clock
    const expiresAt = new Date(this.now() + SESSION_LIFETIME_MS);
    if (expiresAt.getTime() !== session.expiresAt.getTime()) await this.adapter.updateSessionExpiration(session.id, expiresAt);
    return { id: session.id, userId, expiresAt, refreshed: true };
  }

  /** The live session behind a cookie value, refreshed when older than a day; undefined when unknown or expired. */
  async validate(sessionId: string): Promise<ActiveSession | undefined> {
    const now = this.now();
    const cached = this.recent.get(sessionId);
    if (
      cached !== undefined &&
      now - cached.checkedAt < this.cacheTtlMs &&
      now - (cached.expiresAt.getTime() - SESSION_LIFETIME_MS) < SESSION_REFRESH_AFTER_MS
    ) {
      return { id: sessionId, userId: cached.userId, expiresAt: cached.expiresAt, refreshed: false };
    }
    this.recent.delete(sessionId);
    const stored = await this.adapter.getSession(sessionId);
    if (stored === null) return undefined;
    if (stored.expiresAt.getTime() <= now) {
      await this.adapter.deleteSession(sessionId);
      return undefined;
    }
    const lastRefreshedAt = stored.expiresAt.getTime() - SESSION_LIFETIME_MS;
    if (now - lastRefreshedAt < SESSION_REFRESH_AFTER_MS) {
      this.remember(sessionId, stored.userId, stored.expiresAt, now);
      return { id: sessionId, userId: stored.userId, expiresAt: stored.expiresAt, refreshed: false };
    }
    const expiresAt = new Date(now + SESSION_LIFETIME_MS);
    await this.adapter.updateSessionExpiration(sessionId, expiresAt);
    this.remember(sessionId, stored.userId, expiresAt, now);
    return { id: sessionId, userId: stored.userId, expiresAt, refreshed: true };
  }

  async invalidate(sessionId: string): Promise<void> {
    this.recent.delete(sessionId);
    await this.lucia.invalidateSession(sessionId);
  }

  async invalidateUser(userId: string): Promise<void> {
    for (const [id, cached] of this.recent) if (cached.userId === userId) this.recent.delete(id);
    await this.lucia.invalidateUserSessions(userId);
  }

  private remember(sessionId: string, userId: string, expiresAt: Date, now: number): void {
    if (this.recent.size >= CACHE_LIMIT) this.recent.clear();
    this.recent.set(sessionId, { userId, expiresAt, checkedAt: now });
  }

  /** Every session of the user except `keepSessionId` (change-password keeps the caller signed in). */
  async invalidateOthers(userId: string, keepSessionId: string): Promise<void> {
    const keep = await this.adapter.getSession(keepSessionId);
    await this.invalidateUser(userId);
    if (keep !== null) await this.adapter.setSession(keep);
  }

  readCookie(cookieHeader: string | undefined): string | undefined {
    if (cookieHeader === undefined) return undefined;
    return this.lucia.readSessionCookie(cookieHeader) ?? undefined;
  }

  /** `persistent: false` (sign-in without rememberMe) gives a browser-session cookie; the server side still ends in 7 days. */
  cookie(session: ActiveSession, options: { persistent: boolean } = { persistent: true }): Cookie {
    const cookie = this.lucia.createSessionCookie(session.id);
    if (options.persistent) cookie.attributes.expires = session.expiresAt;
    else {
      delete cookie.attributes.expires;
      delete cookie.attributes.maxAge;
    }
    return cookie;
  }

  blankCookie(): Cookie {
    return this.lucia.createBlankSessionCookie();
  }
}
