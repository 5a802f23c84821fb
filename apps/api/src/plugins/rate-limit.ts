import { createHash } from 'node:crypto';
import rateLimit from '@fastify/rate-limit';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { readBearerToken } from '@waymark/core/auth/api-key-secret';
import type { Authenticator } from '@waymark/core/auth/authenticator';
import type { SessionManager } from '@waymark/core/auth/sessions/session-manager';
import type { Config } from '@waymark/core/config/config';
import { AppError } from '@waymark/core/errors/app-error';
import { readSessionCookie, validateSession } from '../http/session-cookie';
import { createSlidingWindowStore } from './rate-limit-store';

const digest = (secret: string) => createHash('sha256').update(secret).digest('hex').slice(0, 32);

/** Whether an address may still have unseen tokens looked up, and the record of one that was not a key. */
interface KeyLookups {
  allowed(request: FastifyRequest): boolean;
  failed(request: FastifyRequest): Promise<void>;
}

/**
 * Who is asking, as the limiter's key: a bearer key, else a signed-in person (one budget per
 * user, whatever session or address they use), else the client address. A bearer token counts
 * as a key only once it is known to be one, so invented tokens share their address's anonymous
 * budget instead of each buying a fresh one; an address whose tokens missed the database
 * `RATE_LIMIT_MAX` times in a window has its unseen tokens counted as anonymous without a lookup
 * until the window frees (docs/operations.md, Rate limits).
 */
async function caller(request: FastifyRequest, deps: RateLimitDeps, lookups: KeyLookups): Promise<string> {
  const header = request.headers.authorization;
  const token = readBearerToken(header);
  if (token !== undefined) {
    let known = deps.authenticator.recall(token);
    if (known === undefined && lookups.allowed(request)) {
      known = await deps.authenticator.isKey(token);
      if (!known) await lookups.failed(request);
    }
    return known === true ? `key:${digest(token)}` : `ip:${request.ip}`;
  }
  if (header === undefined && readSessionCookie(request) !== undefined) {
    try {
      const session = await validateSession(deps.sessions, request);
      if (session !== undefined) return `user:${session.userId}`;
    } catch {
      // the session store is unreachable: authentication meets the same failure (validated once
      // per request) and answers it; meanwhile the request counts against its address
    }
  }
  // an unknown or expired cookie is anybody: counted per address, so made-up cookies buy no budget
  return `ip:${request.ip}`;
}

/** Addresses remembered as over their budget of missed lookups (the oldest go first). */
const REFUSED_ADDRESSES_KEPT = 10_000;

/**
 * Missed key lookups per address, counted in the shared window: a real key never misses, so only
 * an address sending tokens that are not keys ever runs out, and its later unseen tokens cost no
 * database lookup until the window frees.
 */
function keyLookups(app: FastifyInstance, max: number): KeyLookups {
  const misses = routeBudget(app, { name: 'key-miss', max, key: (request) => request.ip });
  const refusedUntil = new Map<string, number>();
  return {
    allowed: (request) => (refusedUntil.get(request.ip) ?? 0) <= Date.now(),
    async failed(request) {
      const spent = await misses.spend(request);
      if (spent.within) return;
      refusedUntil.delete(request.ip);
      refusedUntil.set(request.ip, Date.now() + spent.retryAfterSeconds * 1000);
      for (const oldest of refusedUntil.keys()) {
        if (refusedUntil.size <= REFUSED_ADDRESSES_KEPT) break;
        refusedUntil.delete(oldest);
      }
    },
  };
}

export interface RateLimitDeps {
  config: Config;
  redis: Redis;
  logger: FastifyBaseLogger;
  sessions: SessionManager;
  authenticator: Authenticator;
}

/**
 * Rate limits by who is asking (docs/operations.md, Rate limits): a sliding window per API key
 * (`RATE_LIMIT_MAX`), per signed-in person (`SESSION_RATE_LIMIT_MAX`) or per address, shared
 * through Redis. Recipient routes, webhook sources and the health probe opt out with
 * `config: { rateLimit: false }` and spend budgets of their own (`routeBudget`); routes registered
 * before this plugin (the studio's files) have no limit at all.
 */
export async function registerRateLimit(app: FastifyInstance, deps: RateLimitDeps): Promise<void> {
  const { rateLimit: limits } = deps.config;
  // set once the plugin is registered (it creates the budget); no request is served before that
  let lookups: KeyLookups = { allowed: () => false, failed: async () => undefined };
  await app.register(rateLimit, {
    global: true,
    max: (_request, key) => (key.startsWith('user:') ? limits.sessionMax : limits.max),
    timeWindow: limits.windowMs,
    store: createSlidingWindowStore({ redis: deps.redis, logger: deps.logger }),
    keyGenerator: (request) => caller(request, deps, lookups),
    addHeaders: { 'x-ratelimit-limit': true, 'x-ratelimit-remaining': true, 'x-ratelimit-reset': true, 'retry-after': true },
    addHeadersOnExceeding: { 'x-ratelimit-limit': true, 'x-ratelimit-remaining': true, 'x-ratelimit-reset': true },
    errorResponseBuilder: () => new AppError('rate_limited', 'Rate limit exceeded'),
  });
  lookups = keyLookups(app, limits.max);
}

/**
 * A budget a route spends itself, in the same sliding window and store as the hook's: `spend`
 * counts one request and says whether it was within `max`. Unlike the hook, it never answers
 * for the route, so a recipient's click can still redirect past it.
 */
export function routeBudget(app: FastifyInstance, options: { name: string; max: number; key: (request: FastifyRequest) => string }) {
  const limiter = app.createRateLimit({ max: options.max, keyGenerator: (request) => `${options.name}:${options.key(request)}` });
  return {
    async spend(request: FastifyRequest): Promise<{ within: true } | { within: false; retryAfterSeconds: number }> {
      const outcome = await limiter(request);
      if (outcome.isAllowed || !outcome.isExceeded) return { within: true };
      return { within: false, retryAfterSeconds: Math.max(1, outcome.ttlInSeconds) };
    },
  };
}

/**
 * A per-address ceiling for a public route that has no caller to count until it has done some
 * work (the health probe's backend pings, a webhook's verification): an onRequest hook that
 * answers 429 with Retry-After past `max` requests from one address in the window.
 */
export function addressCeiling(app: FastifyInstance, options: { name: string; max: number }) {
  const budget = routeBudget(app, { ...options, key: (request) => request.ip });
  return async (request: FastifyRequest): Promise<void> => {
    const spent = await budget.spend(request);
    if (spent.within) return;
    throw new AppError('rate_limited', 'Rate limit exceeded').withRetryAfter(spent.retryAfterSeconds);
  };
}
