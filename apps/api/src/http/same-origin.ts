import type { FastifyRequest } from 'fastify';
import { forbidden } from '@waymark/core/errors/app-error';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function originOf(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    return new URL(value).origin;
  } catch {
    return undefined;
  }
}

/**
 * CSRF defence for cookie-authenticated requests: a browser always sends `Origin` (or at least
 * `Referer`) on a cross-site POST, so a state-changing request must name one of our own origins.
 * SameSite=Lax already keeps the cookie off most cross-site requests; this closes the rest
 * (same-site subdomains, old browsers). Bearer-key requests never reach this check.
 */
export function assertSameOrigin(request: FastifyRequest, allowedOrigins: ReadonlySet<string>, alsoAllowed?: string): void {
  if (!STATE_CHANGING.has(request.method)) return;
  const origin = originOf(request.headers.origin) ?? originOf(request.headers.referer);
  if (origin === undefined || !(allowedOrigins.has(origin) || origin === alsoAllowed)) throw forbidden('Invalid origin');
}

export function allowedOrigins(urls: readonly string[]): ReadonlySet<string> {
  return new Set(urls.map((url) => new URL(url).origin));
}
