import { createHash } from 'node:crypto';
import rateLimit from '@fastify/rate-limit';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { readBearerToken } from '@waymark/core/auth/api-key-secret';
import type { SessionManager } from '@waymark/core/auth/sessions/session-manager';
import type { Config } from '@waymark/core/config/config';
import { AppError } from '@waymark/core/errors/app-error';
import { readSessionCookie, validateSession } from '../http/session-cookie';
import { createSlidingWindowStore } from './rate-limit-store';

const digest = (secret: string) => createHash('sha256').update(secret).digest('hex').slice(0, 32);

/**
 * Who is asking, as the limiter's key: a bearer key, else a signed-in person (one budget per
 * user, whatever session or address they use), else the client address.
 */
async function caller(request: FastifyRequest, sessions: SessionManager): Promise<string> {
  const header = request.headers.authorization;
  const token = readBearerToken(header);
  if (token !== undefined) return `key:${digest(token)}`;
  if (header === undefined && readSessionCookie(request) !== undefined) {
    try {
      const session = await validateSession(sessions, request);
      if (session !== undefined) return `user:${session.userId}`;
    } catch {
      // the session store is unreachable: authentication meets the same failure (validated once
      // per request) and answers it; meanwhile the request counts against its address
    }
  }
  // an unknown or expired cookie is anybody: counted per address, so made-up cookies buy no budget
  return `ip:${request.ip}`;
}

export interface RateLimitDeps {
  config: Config;
  redis: Redis;
  logger: FastifyBaseLogger;
  sessions: SessionManager;
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
  await app.register(rateLimit, {
    global: true,
    max: (_request, key) => (key.startsWith('user:') ? limits.sessionMax : limits.max),
    timeWindow: limits.windowMs,
    store: createSlidingWindowStore({ redis: deps.redis, logger: deps.logger }),
    keyGenerator: (request) => caller(request, deps.sessions),
    addHeaders: { 'x-ratelimit-limit': true, 'x-ratelimit-remaining': true, 'x-ratelimit-reset': true, 'retry-after': true },
    addHeadersOnExceeding: { 'x-ratelimit-limit': true, 'x-ratelimit-remaining': true, 'x-ratelimit-reset': true },
    errorResponseBuilder: () => new AppError('rate_limited', 'Rate limit exceeded'),
  });
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
