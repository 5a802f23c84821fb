import type { FastifyRequest } from 'fastify';
import type { AppDeps } from '../../deps';

interface RouteRateLimit {
  max: number;
  timeWindow: number;
  keyGenerator: (request: FastifyRequest) => string;
}

/** What every /api/auth/* route module receives. */
export interface AuthRouteOptions extends Record<string, unknown> {
  deps: AppDeps;
  /** origins a cookie-authenticated state change may come from (AUTH_URL, API_PUBLIC_URL) */
  origins: ReadonlySet<string>;
  limits: { signIn: RouteRateLimit; passwordReset: RouteRateLimit };
}

/** Sign-in 10/60 s and reset requests 5/60 s per client address, apart from the per-key API limit. */
export function authRateLimits(): AuthRouteOptions['limits'] {
  return {
    signIn: { max: 10, timeWindow: 60_000, keyGenerator: (request) => `auth:sign-in:${request.ip}` },
    passwordReset: { max: 5, timeWindow: 60_000, keyGenerator: (request) => `auth:password-reset:${request.ip}` },
  };
}
