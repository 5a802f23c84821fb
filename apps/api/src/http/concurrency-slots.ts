import type { Redis } from 'ioredis';

/** Gives a slot back. */
export type ReleaseSlot = () => Promise<void>;

export interface ConcurrencySlots {
  /** A slot for `who`, or undefined when `who` already holds `max` of them. */
  acquire(who: string): Promise<ReleaseSlot | undefined>;
}

/**
 * At most `max` of one kind of work at once per caller, counted in Redis so every api instance
 * shares the count. A slot a crashed instance never gave back lapses after `leaseMs` (longer than
 * the work can run). While Redis is unreachable each instance counts in memory on its own.
 */
export function createConcurrencySlots(options: { redis: Redis; name: string; max: number; leaseMs: number }): ConcurrencySlots {
  const local = new Map<string, number>();
  const localSlot = (who: string): ReleaseSlot | undefined => {
    const held = local.get(who) ?? 0;
    if (held >= options.max) return undefined;
    local.set(who, held + 1);
    return async () => {
      const left = (local.get(who) ?? 1) - 1;
      if (left <= 0) local.delete(who);
      else local.set(who, left);
    };
  };
  return {
    async acquire(who) {
      const key = `waymark:slots:${options.name}:${who}`;
      let held: number;
      try {
        const [[, count]] = (await options.redis.multi().incr(key).pexpire(key, options.leaseMs).exec()) as [[Error | null, number]];
        held = count;
      } catch {
        return localSlot(who);
      }
      const release: ReleaseSlot = async () => {
        await options.redis.decr(key).catch(() => undefined);
      };
      if (held > options.max) {
        await release();
        return undefined;
      }
      return release;
    },
  };
}
