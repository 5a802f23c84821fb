import type { FastifyInstance, FastifyRequest } from 'fastify';
import { readBearerToken } from '@waymark/core/auth/api-key-secret';
import type { Authenticator } from '@waymark/core/auth/authenticator';
import { hasScope } from '@waymark/core/auth/scopes';
import { AppError, forbidden, unauthorized, unavailable } from '@waymark/core/errors/app-error';
import { readSessionCookie } from '../http/session-cookie';
import './fastify-types';
import { sessionPrincipal, type SessionAuthOptions } from './session-principal';

/**
 * Authentication for everything registered inside this (encapsulated) context: a bearer key
 * (docs/auth.md) or, without an Authorization header, a session cookie (docs/auth.md); both
 * become the same principal, then the route's declared scope is checked. Routes outside the
 * context are public.
 */
export async function bearerAuth(app: FastifyInstance, options: { authenticator: Authenticator; sessions: SessionAuthOptions }): Promise<void> {
  app.addHook('onRoute', (route) => {
    if (route.config?.scope === undefined) {
      throw new Error(`Route ${route.method} ${route.url} is in the bearer context but declares no scope`);
    }
    // the OpenAPI document marks exactly these routes as needing a bearer key, with their scope
    const scope = route.config.scope;
    const sessionNote = scope === 'ingest' ? '' : ' or a session cookie whose organization role grants it';
    const description = [route.schema?.description, `Requires a bearer key with scope \`${scope}\`${sessionNote}.`].filter(Boolean).join('\n\n');
    route.schema = { ...route.schema, security: scope === 'ingest' ? [{ bearer: [] }] : [{ bearer: [] }, { session: [] }], description };
  });

  // preParsing: after the rate limit (a route-level onRequest hook, so anonymous floods are cut off
  // before any key lookup) and before the body is read (nobody unauthenticated gets a body parsed).
  app.addHook('preParsing', async (request: FastifyRequest, reply, payload) => {
    const required = request.routeOptions.config.scope;
    if (required === undefined) throw new AppError('internal', 'Route declares no scope');
    const header = request.headers.authorization;
    if (header === undefined && readSessionCookie(request) !== undefined) {
      const principal = await sessionPrincipal(options.sessions, request, reply);
      // a session never carries `ingest`, even when its role maps to full-admin
      if (required === 'ingest' || !hasScope(principal.scopes, required)) throw forbidden('Insufficient scope');
      request.principal = principal;
      return payload;
    }
    const token = readBearerToken(header);
    if (header !== undefined && token === undefined) throw unauthorized('Malformed Authorization header; expected "Bearer <token>"');
    const outcome = await options.authenticator.authenticate(token);
    switch (outcome.kind) {
      case 'unconfigured':
        // With no key configured the admin plane answers 503 (below); the data plane answers 401 as for any unknown key.
        if (required === 'ingest') throw unauthorized('Invalid API key');
        throw unavailable('No admin API key is configured: set ADMIN_API_KEY or create a key with `npm run waymark -- keys create`');
      case 'rejected':
        throw unauthorized(outcome.message);
      case 'authenticated':
        if (!hasScope(outcome.principal.scopes, required)) throw forbidden('Insufficient scope');
        request.principal = outcome.principal;
        return payload;
    }
  });
}
