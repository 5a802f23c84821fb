import type { Redis } from 'ioredis';
import { RATE_WINDOW_SECONDS, TICKET_GRACE_MS, type BucketStore } from './bucket-store';
import { slotsAhead } from './token-bucket';

/**
 * The installation's one budget in Redis: token-bucket.ts's steps in Lua, so a reservation is one
 * atomic round trip whatever the number of processes, on Redis's clock (TIME), never on the
 * processes' clocks, which may disagree. Keys (under the prefix, default `waymark:send-rate`):
 * `tat` (the bucket), `ticket:<send key>` (a slot kept for a deferred send), `granted` (tokens per
 * second, for the current rate), `processes` (heartbeats: how many processes share the budget),
 * `throttled` (SES Throttling answers).
 */
const RESERVE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval, burst, max_wait, grace, tokens = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local ticket = tonumber(redis.call('GET', KEYS[2]))
if ticket then
  if ticket - now > max_wait then return {math.ceil(ticket - now), 1} end
  redis.call('DEL', KEYS[2])
  return {math.max(0, math.ceil(ticket - now)), 0}
end
local from = math.max(tonumber(redis.call('GET', KEYS[1])) or now, now)
local start = math.max(now, from - (burst - 1) * interval)
local tat = from + tokens * interval
redis.call('SET', KEYS[1], tostring(tat), 'PX', math.ceil(tat - now) + 60000)
local second = math.floor(start / 1000)
redis.call('HINCRBY', KEYS[3], second, tokens)
redis.call('HDEL', KEYS[3], second - 60)
redis.call('PEXPIRE', KEYS[3], math.ceil(start - now) + 120000)
local wait = math.ceil(start - now)
if wait > max_wait then
  redis.call('SET', KEYS[2], tostring(start), 'PX', wait + grace)
  return {wait, 1}
end
return {wait, 0}
`;

/** {now, tat or false, tokens granted in each of the last N full seconds} */
const READOUT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local second = math.floor(now / 1000)
local fields = {}
for back = 1, tonumber(ARGV[1]) do fields[back] = second - back end
local sum = 0
for _, n in ipairs(redis.call('HMGET', KEYS[2], unpack(fields))) do sum = sum + (tonumber(n) or 0) end
return {now, redis.call('GET', KEYS[1]), sum}
`;

/** Records this process alive and answers how many are (seen in the last `ARGV[2]` ms). */
const HEARTBEAT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HSET', KEYS[1], ARGV[1], now)
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 4)
local live = 0
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  if now - tonumber(all[i + 1]) <= tonumber(ARGV[2]) then live = live + 1 else redis.call('HDEL', KEYS[1], all[i]) end
end
return live
`;

interface SendRateCommands {
  sendRateReserve(
    tat: string,
    ticket: string,
    granted: string,
    intervalMs: number,
    burst: number,
    maxWaitMs: number,
    graceMs: number,
    tokens: number,
  ): Promise<[number, number]>;
  sendRateReadout(tat: string, granted: string, seconds: number): Promise<[number, string | null, number]>;
  sendRateHeartbeat(processes: string, processId: string, liveMs: number): Promise<number>;
}

export interface RedisBucket extends BucketStore {
  /** this process is alive; answers how many processes share the budget */
  heartbeat(processId: string, liveMs: number): Promise<number>;
  countThrottled(): Promise<void>;
  throttled(): Promise<number>;
}

export function createRedisBucket(redis: Redis, prefix = 'waymark:send-rate'): RedisBucket {
  redis.defineCommand('sendRateReserve', { numberOfKeys: 3, lua: RESERVE });
  redis.defineCommand('sendRateReadout', { numberOfKeys: 2, lua: READOUT });
  redis.defineCommand('sendRateHeartbeat', { numberOfKeys: 1, lua: HEARTBEAT });
  // defineCommand adds the methods at run time; ioredis cannot type them
  const commands = redis as unknown as SendRateCommands;
  const key = (name: string) => `${prefix}:${name}`;
  return {
    async reserve(sendKey, shape, maxWaitMs, tokens) {
      const [waitMs, deferred] = await commands.sendRateReserve(
        key('tat'),
        key(`ticket:${sendKey}`),
        key('granted'),
        shape.intervalMs,
        shape.burst,
        maxWaitMs,
        TICKET_GRACE_MS,
        tokens,
      );
      return { waitMs, deferred: deferred === 1 };
    },
    async readout(shape) {
      const [now, tat, sum] = await commands.sendRateReadout(key('tat'), key('granted'), RATE_WINDOW_SECONDS);
      return { waiting: slotsAhead(tat === null ? undefined : Number(tat), now, shape), perSecond: sum / RATE_WINDOW_SECONDS };
    },
    heartbeat: (processId, liveMs) => commands.sendRateHeartbeat(key('processes'), processId, liveMs),
    async countThrottled() {
      await redis.incr(key('throttled'));
    },
    async throttled() {
      return Number((await redis.get(key('throttled'))) ?? 0);
    },
  };
}
