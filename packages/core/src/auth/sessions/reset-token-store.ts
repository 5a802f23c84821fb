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
 * one gets undefined, even under a race. Redis in every shared deployment; memory only beside the
 * in-memory sessions of a development API without Redis (docs/auth.md).
 */
export interface ResetTokenStore {
  save(digest: string, reset: StoredReset): Promise<void>;
  take(digest: string): Promise<StoredReset | undefined>;
}

const resetKey = (digest: string) => `waymark:password-reset:${digest}`;

// the stored entry outlives the token by a minute: the caller's (injectable) clock decides expiry
const keepMs = (reset: StoredReset) => Math.max(reset.expiresAt - Date.now(), 0) + STORE_GRACE_MS;

export function redisResetTokens(redis: Redis): ResetTokenStore {
  return {
    async save(digest, reset) {
      await authStore(() => redis.set(resetKey(digest), JSON.stringify(reset), 'PX', keepMs(reset)));
    },
    async take(digest) {
      const raw = await authStore(() => redis.getdel(resetKey(digest)));
      return raw === null ? undefined : (JSON.parse(raw) as StoredReset);
    },
  };
}

export function memoryResetTokens(): ResetTokenStore {
  const tokens = new Map<string, { reset: StoredReset; dropAt: number }>();
  return {
    async save(digest, reset) {
      const now = Date.now();
      for (const [key, entry] of tokens) if (entry.dropAt <= now) tokens.delete(key);
      tokens.set(digest, { reset, dropAt: now + keepMs(reset) });
    },
    async take(digest) {
      const entry = tokens.get(digest);
      tokens.delete(digest);
      return entry === undefined || entry.dropAt <= Date.now() ? undefined : entry.reset;
    },
  };
}
