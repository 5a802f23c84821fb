import { z } from 'zod';
import { changePassword } from '@waymark/core/users/change-password';
import { requestPasswordReset, resetPassword } from '@waymark/core/users/password-reset';
import { authErrorBody, emailField, okBody, passwordField, sessionErrors } from '../../schemas/auth';
import { assertSameOrigin } from '../../http/same-origin';
import { requireSession } from '../../http/session-cookie';
import type { RoutePlugin } from '../../http/type-provider';
import type { AuthRouteOptions } from './options';

const tags = ['auth'];

/** Self-service password reset by email, and password change while signed in (docs/auth.md). */
export const authPasswordRoutes: RoutePlugin<AuthRouteOptions> = async (app, { deps, origins, limits }) => {
  app.post(
    '/api/auth/request-password-reset',
    {
      config: { rateLimit: limits.passwordReset },
      schema: {
        tags,
        summary: 'Email a password-reset link',
        description:
          'Always 200, whether or not the email belongs to an account. For an account, an email links to ' +
          '`/studio/reset-password?token=…`; the token works once, for 15 minutes. At most 5 requests per 60 seconds per client.',
        body: z.strictObject({ email: emailField }),
        response: { 200: okBody, 400: authErrorBody, 429: authErrorBody },
      },
      // every step for a known address (the lookup, the token, the audit row, the send) runs once
      // the answer has left, so the answer takes the same time whether or not the address exists;
      // a send that fails for good is recorded by the send path itself (failed + DLQ)
      onResponse: async (request, reply) => {
        if (reply.statusCode !== 200) return;
        const body = request.body as { email: string };
        const work = (async () => {
          const started = await requestPasswordReset(deps.passwordReset, { email: body.email, ipAddress: request.ip });
          await started?.sending;
        })();
        // an api closing right after the answer finishes this first: the email's run is started
        deps.systemEmails.track(work);
        try {
          await work;
        } catch (error) {
          request.log.error({ err: error }, 'password reset email could not be sent');
        }
      },
    },
    async () => ({ ok: true as const }),
  );

  app.post(
    '/api/auth/reset-password',
    {
      schema: {
        tags,
        summary: 'Set a new password with a reset token',
        description: 'Every session of the user is revoked. A used, unknown or expired token gets 400 with code `INVALID_TOKEN`.',
        body: z.strictObject({ token: z.string().min(1).max(200), newPassword: passwordField }),
        response: { 200: okBody, 400: authErrorBody },
      },
    },
    async (request) => {
      await resetPassword(deps.passwordReset, { token: request.body.token, newPassword: request.body.newPassword, ipAddress: request.ip });
      return { ok: true as const };
    },
  );

  app.post(
    '/api/auth/change-password',
    {
      schema: {
        tags,
        summary: "Change the signed-in user's password",
        description: 'Needs the current password; every other session of the user is revoked (this one stays).',
        security: [{ session: [] }],
        body: z.strictObject({ currentPassword: z.string().min(1).max(128), newPassword: passwordField }),
        response: { 200: okBody, ...sessionErrors },
      },
    },
    async (request, reply) => {
      const session = await requireSession(deps.sessions, request, reply);
      assertSameOrigin(request, origins);
      await changePassword(
        { db: deps.db, sessions: deps.sessions, resetTokens: deps.passwordReset.resetTokens, signInFailures: deps.signInFailures },
        {
          userId: session.userId,
          sessionId: session.id,
          currentPassword: request.body.currentPassword,
          newPassword: request.body.newPassword,
          ipAddress: request.ip,
        },
      );
      return { ok: true as const };
    },
  );
};
