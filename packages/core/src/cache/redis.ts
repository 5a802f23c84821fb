import { Redis } from 'ioredis';

/**
 * Commands fail fast while Redis is down (no offline queue, one retry) so callers can fall
 * back (rate limits) or report degraded (health) instead of hanging a request.
 */
export function createRedis(url: string, options: { connectionName: string }): Redis {
  return new Redis(url, {
    connectionName: options.connectionName,
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
}

/**
 * Connects, waiting at most `timeoutMs`. Without an offline queue, commands sent before the
 * connection is ready would fail, so processes call this at boot. A Redis that is down does not
 * stop the boot: ioredis keeps reconnecting and callers degrade until it is back.
 */
export async function connectRedis(redis: Redis, timeoutMs = 3_000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([redis.connect().then(() => true), timeout]);
  } catch {
    // reported through the client's 'error' event listener; reconnection continues in the background
    return false;
  } finally {
    clearTimeout(timer);
  }
}
