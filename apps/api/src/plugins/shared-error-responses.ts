import type { FastifyInstance } from 'fastify';
import { errorBody } from '../schemas/common';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The `{error}` answers any route can give without saying so itself, by where they come from:
 * validation and unstorable input (400), the URL or header limits of the HTTP server (414, 431),
 * the rate limit (429, except on routes with `config.rateLimit: false`), the error handler (500); a body of the wrong size or type (413,
 * 415) on routes that take one; an unknown id (404) on routes with path parameters; and the
 * bearer plugin's 401, 403 and 503 on routes that declare a scope.
 */
function sharedStatuses(method: string, url: string, bearer: boolean, limited: boolean): number[] {
  const statuses = [400, 414, 431, 500];
  if (limited) statuses.push(429);
  if (BODY_METHODS.has(method)) statuses.push(413, 415);
  if (url.includes(':') || url.includes('*')) statuses.push(404);
  if (bearer) statuses.push(401, 403, 503);
  return statuses;
}

/**
 * Adds the shared error responses to every route as it is registered (one onRoute hook), so the
 * OpenAPI document lists every status the server can answer, and any route added later by any
 * plugin gets them too. A route's own declaration of a status (e.g. an HTML 400 page) wins.
 */
export function registerSharedErrorResponses(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const schema = route.schema;
    if (schema === undefined || schema.hide === true) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (methods.every((method) => method === 'HEAD' || method === 'OPTIONS')) return;
    const bearer = typeof route.config === 'object' && route.config !== null && 'scope' in route.config && route.config.scope !== undefined;
    const limited = route.config?.rateLimit !== false;
    const own = (schema.response ?? {}) as Record<string, unknown>;
    const shared = Object.fromEntries(
      methods.flatMap((method) => sharedStatuses(method, route.url, bearer, limited)).map((status) => [status, errorBody] as const),
    );
    schema.response = { ...shared, ...own };
  });
}
