import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { authStore } from '../auth/sessions/redis-session-adapter';

/**
 * Failed sign-ins one account may take in a window before its sign-in answers 429 (docs/auth.md,
 * "Limits"): the per-address limit cannot stop guesses spread over many addresses.
 */
export const SIGN_IN_FAILURES_MAX = 10;
export const SIGN_IN_FAILURES_WINDOW_MS = 15 * 60_000;

/**
 * Counts failed sign-ins per account (by the digest of the normalised email, whether or not an
 * account has it, so the 429 says nothing of which exist), in a window that starts with the first
 * failure. A successful sign-in and a new password (revokeForNewPassword) clear the count.
 */
export interface SignInFailures {
  /** how long the account's sign-in stays closed; 0 while it is open */
  lockedForMs(email: string): Promise<number>;
  recordFailure(email: string): Promise<void>;
  clear(email: string): Promise<void>;
}

const keyOf = (email: string) => `waymark:sign-in-failures:${createHash('sha256').update(email.trim().toLowerCase()).digest('hex')}`;

export function redisSignInFailures(redis: Redis): SignInFailures {
  return {
    async lockedForMs(email) {
      const key = keyOf(email);
      const [count, ttl] = await authStore(() => Promise.all([redis.get(key), redis.pttl(key)]));
      return Number(count ?? 0) >= SIGN_IN_FAILURES_MAX && ttl > 0 ? ttl : 0;
    },
    async recordFailure(email) {
      const key = keyOf(email);
      await authStore(() => redis.multi().incr(key).pexpire(key, SIGN_IN_FAILURES_WINDOW_MS, 'NX').exec());
    },
    async clear(email) {
      await authStore(() => redis.del(keyOf(email)));
    },
  };
}

/** Beside the in-memory sessions of a development API without Redis: counted per process. */
export function memorySignInFailures(now: () => number = Date.now): SignInFailures {
  const counts = new Map<string, { count: number; endsAt: number }>();
  const current = (email: string) => {
    const entry = counts.get(keyOf(email));
    return entry === undefined || entry.endsAt <= now() ? undefined : entry;
  };
  return {
    async lockedForMs(email) {
      const entry = current(email);
      return entry !== undefined && entry.count >= SIGN_IN_FAILURES_MAX ? entry.endsAt - now() : 0;
    },
    async recordFailure(email) {
      const entry = current(email) ?? { count: 0, endsAt: now() + SIGN_IN_FAILURES_WINDOW_MS };
      counts.set(keyOf(email), { ...entry, count: entry.count + 1 });
    },
    async clear(email) {
      counts.delete(keyOf(email));
    },
  };
}
