import { randomUUID } from 'node:crypto';
import type { Redis, Result } from 'ioredis';
import type { FastifyBaseLogger } from 'fastify';
import { createGroupCommit } from '@waymark/core/concurrency/group-commit';
import { InMemorySlidingWindow, SLIDING_WINDOW_LUA } from './sliding-window';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    waymarkSlidingWindow(key: string, at: number, windowMs: number, max: number, member: string): Result<[number, number], Context>;
  }
}

type Callback = (error: Error | null, result?: { current: number; ttl: number }) => void;

interface StoreDeps {
  redis: Redis;
  logger: FastifyBaseLogger;
  now?: () => number;
}

/**
 * A @fastify/rate-limit store: sliding window in Redis, falling back to a per-instance window
 * when Redis is unreachable so an outage of the cache never takes the API down.
 */
export function createSlidingWindowStore(deps: StoreDeps) {
  const fallback = new InMemorySlidingWindow();
  const now = deps.now ?? Date.now;
  let degraded = false;
  // a defined command goes out as EVALSHA (the script body is sent only after a NOSCRIPT), so a
  // request does not ship the whole script to Redis every time
  deps.redis.defineCommand('waymarkSlidingWindow', { numberOfKeys: 1, lua: SLIDING_WINDOW_LUA });
  // hits that arrive while a write to Redis is out share the next one (one pipeline, one socket
  // write and read): a round trip per hit was a fifth of a tracked click's CPU under load. Each
  // hit is still its own EVALSHA, judged in arrival order.
  const hitRedis = createGroupCommit<Parameters<Redis['waymarkSlidingWindow']>, [number, number] | Error>(async (hits) => {
    const pipeline = deps.redis.pipeline();
    for (const hit of hits) pipeline.waymarkSlidingWindow(...hit);
    const results = (await pipeline.exec()) ?? [];
    return hits.map((_hit, index) => {
      const [error, raw] = results[index] ?? [new Error('rate limiter: no reply from Redis'), undefined];
      return error ?? (raw as [number, number]);
    });
  });

  class SlidingWindowStore {
    incr(key: string, callback: Callback, windowMs: number, max: number): void {
      const at = now();
      hitRedis
        .add([`waymark:rl:${key}`, at, windowMs, max, `${at}:${randomUUID()}`])
        .then((raw) => {
          if (raw instanceof Error) throw raw;
          if (degraded) deps.logger.info('rate limiter: Redis reachable again, using the shared window');
          degraded = false;
          const [current, ttl] = raw;
          callback(null, { current, ttl });
        })
        .catch((error: unknown) => {
          if (!degraded) deps.logger.warn({ err: error }, 'rate limiter: Redis unreachable, using the in-memory window');
          degraded = true;
          callback(null, fallback.hit(key, at, windowMs, max));
        });
    }

    child(): SlidingWindowStore {
      return this;
    }
  }
  return SlidingWindowStore;
}
