import { z } from 'zod';
import { recordAudit, userAudit } from '@waymark/core/audit/audit-log';
import { sessionAccess } from '@waymark/core/organizations/session-principals';
import { signIn } from '@waymark/core/users/sign-in';
import { badRequest, unauthorized } from '@waymark/core/errors/app-error';
import { findUserById, toUser } from '@waymark/core/users/users';
import { authErrorBody, currentSession as currentSessionBody, emailField, okBody, passwordField, signedIn } from '../../schemas/auth';
import { ACTIVE_ORGANIZATION_HEADER } from '../../plugins/session-principal';
import { assertSameOrigin } from '../../http/same-origin';
import { currentSession, publicSession, readSessionCookie, setCookie } from '../../http/session-cookie';
import type { RoutePlugin } from '../../http/type-provider';
import type { AuthRouteOptions } from './options';

const tags = ['auth'];

/** Sign-in, the closed sign-up, the current session and sign-out (docs/auth.md). */
export const authSessionRoutes: RoutePlugin<AuthRouteOptions> = async (app, { deps, origins, limits }) => {
  app.post(
    '/api/auth/sign-in/email',
    {
      config: { rateLimit: limits.signIn },
      schema: {
        tags,
        summary: 'Sign in with email and password',
        description:
          'Sets the `waymark_session` cookie (HttpOnly, SameSite=Lax, Path=/; Secure in production). ' +
          'A wrong email and a wrong password get the same 401. At most 10 attempts per 60 seconds per client; after 10 failed ones ' +
          'within 15 minutes an account answers 429 until those 15 minutes end or its password is reset (docs/auth.md, "Limits").',
        body: z.strictObject({ email: emailField, password: passwordField, rememberMe: z.boolean().optional() }),
        response: { 200: signedIn, 400: authErrorBody, 401: authErrorBody, 403: authErrorBody, 429: authErrorBody },
      },
    },
    async (request, reply) => {
      // a cross-site form must not sign a browser into an attacker's account (login CSRF)
      if (request.headers.origin !== undefined) assertSameOrigin(request, origins);
      const { user, session } = await signIn(deps, { email: request.body.email, password: request.body.password, ipAddress: request.ip });
      setCookie(reply, deps.sessions.cookie(session, { persistent: request.body.rememberMe ?? true }));
      return { user, session: publicSession(session) };
    },
  );

  app.post(
    '/api/auth/sign-up/email',
    {
      schema: {
        tags,
        summary: 'Public sign-up (disabled)',
        description:
          'Always 400 with code `EMAIL_PASSWORD_SIGN_UP_DISABLED`: accounts come from the server (`waymark admin create`, ' +
          '`STUDIO_ADMIN_EMAIL`) or from an invitation.',
        body: z.unknown().optional(),
        response: { 400: authErrorBody },
      },
    },
    async () => {
      throw badRequest('Email and password sign up is not enabled').withReason('EMAIL_PASSWORD_SIGN_UP_DISABLED');
    },
  );

  app.get(
    '/api/auth/get-session',
    {
      schema: {
        tags,
        summary: 'The signed-in user and session, with the active organization and what the role there allows',
        description:
          'A session older than a day is refreshed: its expiry moves to now + 7 days and the cookie is sent again. ' +
          '`organization` is the one /v1/admin/* calls act in (`X-Waymark-Org`: id or slug; else the first), and `abilities` what its role allows.',
        security: [{ session: [] }],
        response: { 200: currentSessionBody, 401: authErrorBody },
      },
    },
    async (request, reply) => {
      const session = await currentSession(deps.sessions, request, reply);
      const row = session === undefined ? undefined : await findUserById(deps.db, session.userId);
      if (session === undefined || row === undefined) throw unauthorized('Not signed in');
      const requested = request.headers[ACTIVE_ORGANIZATION_HEADER];
      const access = await sessionAccess(deps.db, row.id, typeof requested === 'string' ? requested.trim() : undefined);
      return { user: toUser(row), session: publicSession(session), ...access };
    },
  );

  app.post(
    '/api/auth/sign-out',
    {
      schema: {
        tags,
        summary: 'Sign out: delete the session and clear the cookie',
        // signing out without a session is a no-op that still clears the cookie: the cookie is optional
        security: [{ session: [] }, {}],
        // no body: the session is the cookie (a client may still send `{}`; it is ignored)
        response: { 200: okBody, 403: authErrorBody },
      },
    },
    async (request, reply) => {
      const token = readSessionCookie(request);
      if (token !== undefined) {
        assertSameOrigin(request, origins);
        const session = await deps.sessions.validate(token);
        if (session !== undefined) {
          const row = await findUserById(deps.db, session.userId);
          // the audit row first, in a transaction that commits once the session is gone: a row
          // that cannot be written leaves the session as it was (docs/security.md)
          await deps.db.transaction().execute(async (tx) => {
            if (row !== undefined) await recordAudit(tx, userAudit(row, { action: 'sign-out', resource: 'user', resourceId: row.id, ipAddress: request.ip }));
            await deps.sessions.invalidate(session.id);
          });
        }
      }
      setCookie(reply, deps.sessions.blankCookie());
      return { ok: true as const };
    },
  );
};
