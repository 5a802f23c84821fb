/**
 * Sliding-log rate limiting: a request is allowed when fewer than `max` requests were allowed
 * in the last `windowMs`. Unlike a fixed window it never lets 2×max through around a boundary.
 * Rejected requests are not logged, so a client that keeps hammering is not locked out forever.
 */
export interface WindowHit {
  /** requests in the window including this one; above max means rejected */
  current: number;
  /** ms until the oldest allowed request leaves the window (a slot frees up) */
  ttl: number;
}

export class InMemorySlidingWindow {
  private readonly logs = new Map<string, number[]>();

  constructor(private readonly maxKeys = 10_000) {}

  hit(key: string, now: number, windowMs: number, max: number): WindowHit {
    const log = (this.logs.get(key) ?? []).filter((at) => at > now - windowMs);
    const allowed = log.length < max;
    if (allowed) log.push(now);
    this.logs.delete(key);
    this.logs.set(key, log);
    this.evictOldest();
    const oldest = log[0] ?? now;
    return { current: allowed ? log.length : log.length + 1, ttl: Math.max(0, oldest + windowMs - now) };
  }

  /** Map keeps insertion order and hit() re-inserts, so the first key is the least recently used. */
  private evictOldest(): void {
    while (this.logs.size > this.maxKeys) {
      const first = this.logs.keys().next();
      if (first.done === true) return;
      this.logs.delete(first.value);
    }
  }
}

/** The same algorithm in Redis (one round trip, atomic), shared by every api instance. */
export const SLIDING_WINDOW_LUA = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local max = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
local allowed = count < max
if allowed then
  redis.call('ZADD', key, now, ARGV[4])
  count = count + 1
  redis.call('PEXPIRE', key, window)
end
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
local ttl = window
if oldest[2] then ttl = tonumber(oldest[2]) + window - now end
if allowed then return {count, ttl} end
return {count + 1, ttl}
`;
