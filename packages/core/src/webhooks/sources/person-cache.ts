import type { Redis } from 'ioredis';

/** How long a person's properties are remembered after they were last seen. */
const TTL_SECONDS = 30 * 24 * 60 * 60;

export interface PersonPropertyCache {
  /** merges the primitives of `properties` into the person's entry and returns the cached email */
  rememberAndRecall(sourceId: string, userId: string, properties: Record<string, unknown> | undefined): Promise<string | undefined>;
  /**
   * Drops a person's entries in every source that caches (an erasure): left, a later event without
   * an email would bring the erased address back with the contact it re-creates.
   */
  forget(userIds: readonly string[]): Promise<void>;
}

const keyOf = (sourceId: string, userId: string) => `waymark:source-person:${sourceId}:${userId}`;

/**
 * Per-person properties of a source, in Redis (CACHE_URL): an analytics tool sends the person's
 * properties with some events and not others, so the email seen once is remembered for the
 * events that come without it. One hash per person, refreshed for 30 days on every write.
 * `cachingSourceIds`: the sources that use it (`propertyCache`), whose entries `forget` drops.
 */
export function createPersonPropertyCache(redis: Redis, cachingSourceIds: readonly string[]): PersonPropertyCache {
  return {
    async rememberAndRecall(sourceId, userId, properties) {
      const key = keyOf(sourceId, userId);
      const fields: Record<string, string> = {};
      for (const [name, value] of Object.entries(properties ?? {})) {
        if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) fields[name] = JSON.stringify(value);
      }
      const pipeline = redis.pipeline();
      if (Object.keys(fields).length > 0) pipeline.hset(key, fields).expire(key, TTL_SECONDS);
      pipeline.hget(key, 'email');
      const results = (await pipeline.exec()) ?? [];
      const [error, email] = results[results.length - 1] ?? [null, null];
      if (error) throw error;
      if (typeof email !== 'string') return undefined;
      const parsed: unknown = JSON.parse(email);
      return typeof parsed === 'string' ? parsed : undefined;
    },

    async forget(userIds) {
      const keys = cachingSourceIds.flatMap((sourceId) => userIds.map((userId) => keyOf(sourceId, userId)));
      if (keys.length > 0) await redis.del(...keys);
    },
  };
}
