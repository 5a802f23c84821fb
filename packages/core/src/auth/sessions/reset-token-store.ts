import type { Redis } from 'ioredis';
import { authStore } from './redis-session-adapter';
import { STORE_GRACE_MS } from './session-adapter';

/** What is kept per password-reset token (under the token's SHA-256 digest, never the token). */
export interface StoredReset {
  userId: string;
  expiresAt: number;
}

/**
 * Single-use password-reset tokens. `take` spends the token: the first caller gets it, every later
 * one gets undefined, even under a race. Only a user's newest token works: `save` makes it the
 * user's one live token, and `revokeUser` (a password change) ends it (docs/auth.md). Redis in
 * every shared deployment; memory only beside the in-memory sessions of a development API without
 * Redis.
 */
export interface ResetTokenStore {
  save(digest: string, reset: StoredReset): Promise<void>;
  take(digest: string): Promise<StoredReset | undefined>;
  revokeUser(userId: string): Promise<void>;
}

const resetKey = (digest: string) => `waymark:password-reset:${digest}`;
// the digest of the user's live token: a token whose digest is not this one was revoked
const userKey = (userId: string) => `waymark:password-reset-user:${userId}`;

// the stored entry outlives the token by a minute: the caller's (injectable) clock decides expiry
const keepMs = (reset: StoredReset) => Math.max(reset.expiresAt - Date.now(), 0) + STORE_GRACE_MS;

/** The user's live token is ARGV[1]: it is spent (1); else 0. One script, so a concurrent save cannot interleave. */
const TAKE_LIVE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0`;

export function redisResetTokens(redis: Redis): ResetTokenStore {
  return {
    async save(digest, reset) {
      await authStore(() =>
        redis.multi().set(resetKey(digest), JSON.stringify(reset), 'PX', keepMs(reset)).set(userKey(reset.userId), digest, 'PX', keepMs(reset)).exec(),
      );
    },
    async take(digest) {
      const raw = await authStore(() => redis.getdel(resetKey(digest)));
      if (raw === null) return undefined;
      const reset = JSON.parse(raw) as StoredReset;
      // spent or not, this token ends the user's live one; only the newest one was live
      const live = await authStore(() => redis.eval(TAKE_LIVE, 1, userKey(reset.userId), digest));
      return live === 1 ? reset : undefined;
    },
    async revokeUser(userId) {
      await authStore(() => redis.del(userKey(userId)));
    },
  };
}

export function memoryResetTokens(): ResetTokenStore {
  const tokens = new Map<string, { reset: StoredReset; dropAt: number }>();
  const live = new Map<string, string>();
  return {
    async save(digest, reset) {
      const now = Date.now();
      for (const [key, entry] of tokens) if (entry.dropAt <= now) tokens.delete(key);
      tokens.set(digest, { reset, dropAt: now + keepMs(reset) });
      live.set(reset.userId, digest);
    },
    async take(digest) {
      const entry = tokens.get(digest);
      tokens.delete(digest);
      if (entry === undefined || live.get(entry.reset.userId) !== digest) return undefined;
      live.delete(entry.reset.userId);
      return entry.dropAt <= Date.now() ? undefined : entry.reset;
    },
    async revokeUser(userId) {
      live.delete(userId);
    },
  };
}
