import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import { connectRedis } from '../cache/redis';
import type { AppLogger } from '../logging/logger';
import { createMemoryBucket } from './memory-bucket';
import { createRedisBucket } from './redis-bucket';
import { bucketShape } from './token-bucket';

/** Where the budget's size came from. */
export type SendRateSource = 'env' | 'ses' | 'none';

/** What /metrics and the studio overview show (docs/email.md, "Send rate"). */
export interface SendRateSnapshot {
  /** the installation's budget in sends per second; null: unlimited (neither SES_MAX_SEND_RATE nor SES GetAccount gave one) */
  limitPerSecond: number | null;
  source: SendRateSource;
  /** tokens handed out per second over the last 10 s (every process; this one alone in fallback); null when unlimited */
  currentPerSecond: number | null;
  /** sends waiting for their slot: waiting in a worker or deferred to come back for it */
  waiting: number;
  /** this process cannot reach Redis and sends at its share of the budget */
  fallback: boolean;
  /** processes sharing the budget (sending api and worker processes seen in Redis in the last 15 s) */
  processes: number;
  /** this process's rate while in fallback (limit × SEND_RATE_WORKER_SHARE, or limit / processes) */
  sharePerSecond: number | null;
  /** SES Throttling answers, every process while Redis is up */
  throttled: number;
}

export interface SendRateGovernor {
  /**
   * Waits for a token of the shared budget (at most `maxWaitMs`) and answers undefined: send now.
   * A slot further away is kept for this send (its idempotency key) and its moment is answered:
   * the caller comes back then (a durable retry) instead of holding a worker that long.
   * `tokens` is what the send is worth (default 1): a send worth two holds the sends after it back
   * twice as long, which halves the rate of a stream of such sends (the reputation breaker's
   * `slowed`: deliverability/reputation-hold.ts).
   */
  acquire(sendKey: string, tokens?: number): Promise<Date | undefined>;
  /** SES answered Throttling (counted for the metrics) */
  recordThrottled(): void;
  snapshot(): Promise<SendRateSnapshot>;
  close(): Promise<void>;
}

export interface SendRateGovernorOptions {
  /** CACHE_URL: the budget is shared through this Redis (the governor opens its own connection) */
  redis: Redis;
  /** SES_MAX_SEND_RATE: when set, SES is not asked */
  maxPerSecond: number | undefined;
  /** SEND_RATE_WORKER_SHARE: this process's share of the budget while Redis is unreachable */
  workerShare: number | undefined;
  /** SESv2 GetAccount's MaxSendRate; throws or answers undefined when SES does not say */
  readSesMaxSendRate: () => Promise<number | undefined>;
  logger: Pick<AppLogger, 'info' | 'warn' | 'debug'>;
  /**
   * The longest a send waits in the process for its token (default 10 s): well inside the send
   * activity's 30 s start-to-close timeout, with room for the render, the writes and the SES call.
   */
  maxWaitMs?: number;
  /** Redis key prefix of the budget (default `waymark:send-rate`) */
  prefix?: string;
}

/** SES's quota is read again this often: a raised quota applies within 10 minutes, without a restart. */
const REFRESH_MS = 10 * 60_000;
/** Heartbeats tell every process how many share the budget (its fallback share). */
const HEARTBEAT_MS = 5_000;
const LIVE_MS = 15_000;
/** A deferred send comes back this long before its slot and waits the rest in the process. */
const COME_BACK_EARLY_MS = 1_000;

export function createSendRateGovernor(options: SendRateGovernorOptions): SendRateGovernor {
  const { redis, logger } = options;
  const maxWaitMs = options.maxWaitMs ?? 10_000;
  const shared = createRedisBucket(redis, options.prefix);
  const local = createMemoryBucket();
  const processId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  let limit: number | undefined;
  let source: SendRateSource = 'none';
  let fallback = false;
  // until a heartbeat has counted them, this process assumes it sends alone
  let processes = 1;
  let waitingHere = 0;
  let throttledHere = 0;

  const share = () => options.workerShare ?? 1 / Math.max(1, processes);
  const sharePerSecond = () => (limit === undefined ? null : limit * share());

  function enterFallback(error?: unknown): void {
    if (fallback) return;
    fallback = true;
    logger.warn(
      { err: error, limitPerSecond: limit, sharePerSecond: sharePerSecond(), processes },
      `send rate: Redis is unreachable; this process sends at most ${sharePerSecond()?.toFixed(2)}/s (its share of ${limit}/s) until it is back`,
    );
  }
  function leaveFallback(): void {
    if (!fallback) return;
    fallback = false;
    logger.info({ limitPerSecond: limit }, `send rate: Redis is reachable again; every process shares the budget of ${limit}/s`);
  }

  let unknownLogged = false;
  async function refresh(): Promise<void> {
    if (options.maxPerSecond !== undefined) {
      limit = options.maxPerSecond;
      source = 'env';
      return;
    }
    let rate: number | undefined;
    try {
      rate = await options.readSesMaxSendRate();
    } catch (error) {
      if (source === 'ses') {
        logger.warn({ err: error }, `send rate: SES GetAccount failed; keeping the last known budget of ${limit}/s`);
        return;
      }
      if (!unknownLogged)
        logger.info(
          { err: error },
          'send rate: SES GetAccount did not give a maximum send rate; sends are not rate-limited (set SES_MAX_SEND_RATE to limit them)',
        );
      unknownLogged = true;
      return;
    }
    if (rate === undefined) return;
    if (rate !== limit) logger.info({ limitPerSecond: rate }, `send rate: SES allows ${rate} sends per second; every process shares that budget`);
    limit = rate;
    source = 'ses';
  }

  async function heartbeat(): Promise<void> {
    if (redis.status !== 'ready') return;
    try {
      processes = Math.max(1, await shared.heartbeat(processId, LIVE_MS));
      leaveFallback();
    } catch (error) {
      // the next send finds out too and falls back; a heartbeat only counts processes
      logger.debug({ err: error }, 'send rate: heartbeat failed');
    }
  }

  // ioredis reports every failed reconnect as an 'error' event; the governor reports the state change once (enterFallback)
  redis.on('error', (error: Error) => logger.debug({ err: error }, 'send rate: redis connection error'));
  const ready = Promise.all([connectRedis(redis).then(heartbeat), refresh()]);
  const timers = [
    setInterval(() => void heartbeat(), HEARTBEAT_MS),
    ...(options.maxPerSecond === undefined ? [setInterval(() => void refresh(), REFRESH_MS)] : []),
  ];
  for (const timer of timers) timer.unref();

  async function reserve(sendKey: string, rate: number, tokens: number) {
    if (redis.status === 'ready') {
      try {
        const reservation = await shared.reserve(sendKey, bucketShape(rate), maxWaitMs, tokens);
        leaveFallback();
        return reservation;
      } catch (error) {
        enterFallback(error);
      }
    } else {
      enterFallback();
    }
    return local.reserve(sendKey, bucketShape(rate * share()), maxWaitMs, tokens);
  }

  return {
    async acquire(sendKey, tokens = 1) {
      await ready;
      if (limit === undefined) return undefined;
      const reservation = await reserve(sendKey, limit, tokens);
      if (reservation.deferred) return new Date(Date.now() + reservation.waitMs - COME_BACK_EARLY_MS);
      if (reservation.waitMs > 0) {
        waitingHere += 1;
        await new Promise((resolve) => setTimeout(resolve, reservation.waitMs));
        waitingHere -= 1;
      }
      return undefined;
    },
    recordThrottled() {
      throttledHere += 1;
      if (redis.status !== 'ready') return;
      shared.countThrottled().catch((error: unknown) => logger.debug({ err: error }, 'send rate: could not count a Throttling answer in Redis'));
    },
    async snapshot() {
      await ready;
      const base = { limitPerSecond: limit ?? null, source, fallback, processes, sharePerSecond: sharePerSecond() };
      if (limit === undefined) return { ...base, currentPerSecond: null, waiting: waitingHere, throttled: throttledHere };
      if (!fallback && redis.status === 'ready') {
        try {
          const [readout, throttled] = await Promise.all([shared.readout(bucketShape(limit)), shared.throttled()]);
          return { ...base, currentPerSecond: readout.perSecond, waiting: readout.waiting, throttled };
        } catch (error) {
          logger.debug({ err: error }, 'send rate: Redis readout failed; showing this process alone');
        }
      }
      const readout = await local.readout(bucketShape(limit * share()));
      return { ...base, currentPerSecond: readout.perSecond, waiting: Math.max(readout.waiting, waitingHere), throttled: throttledHere };
    },
    async close() {
      for (const timer of timers) clearInterval(timer);
      await ready;
      redis.disconnect();
    },
  };
}
