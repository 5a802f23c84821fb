import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '@waymark/core/auth/authenticator';
import { activeMembership, type SessionPrincipals } from '@waymark/core/organizations/session-principals';
import type { SessionManager } from '@waymark/core/auth/sessions/session-manager';
import { forbidden, unauthorized } from '@waymark/core/errors/app-error';
import { scopeOfRole } from '@waymark/core/organizations/roles';
import { assertSameOrigin } from '../http/same-origin';
import { currentSession } from '../http/session-cookie';

export interface SessionAuthOptions {
  sessions: SessionManager;
  principals: SessionPrincipals;
  /** origins a cookie-authenticated state change may come from */
  origins: ReadonlySet<string>;
}

export const ACTIVE_ORGANIZATION_HEADER = 'x-waymark-org';

/** The one other origin a route lets send credentials (its `config.cors`), whose sessions it then takes. */
function credentialedOrigin(request: FastifyRequest): string | undefined {
  const cors = request.routeOptions.config.cors;
  return cors?.credentials === true && typeof cors.origin === 'string' ? cors.origin : undefined;
}

/**
 * The principal of a cookie-authenticated /v1/admin/* request: the person's role gives the scope,
 * whatever organization is active (data is global: an organization is a team, not a tenant). A
 * person must belong to some organization, and to the one `X-Waymark-Org` names if any. A session
 * never carries `ingest`, and a state change must come from our own origin (CSRF).
 */
export async function sessionPrincipal(options: SessionAuthOptions, request: FastifyRequest, reply: FastifyReply): Promise<Principal> {
  const session = await currentSession(options.sessions, request, reply);
  if (session === undefined) throw unauthorized('Invalid or expired session');
  assertSameOrigin(request, options.origins, credentialedOrigin(request));
  const access = await options.principals.load(session.userId);
  if (access === undefined) throw unauthorized('Invalid or expired session');
  const requested = request.headers[ACTIVE_ORGANIZATION_HEADER];
  const membership = activeMembership(access.memberships, typeof requested === 'string' ? requested.trim() : undefined);
  if (membership === undefined)
    throw forbidden(requested === undefined ? 'Insufficient scope: not a member of any organization' : 'Insufficient scope: not a member of that organization');
  return { actor: access.user.email, actorKeyId: null, actorType: 'user', actorUserId: access.user.id, scopes: [scopeOfRole(access.role)] };
}
