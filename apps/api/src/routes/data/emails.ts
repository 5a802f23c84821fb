import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { AppError, isAppError } from '@waymark/core/errors/app-error';
import type { JsonObject } from '@waymark/core/db/schema';
import { sendEmail } from '@waymark/core/emails/send-email';
import type { AppDeps } from '../../deps';
import type { RoutePlugin } from '../../http/type-provider';
import { bearerErrors } from '../../schemas/common';
import { emailField } from '../../schemas/contacts';

const tags = ['data-plane'];

/**
 * Data plane: a transactional send (scope ingest or full-admin) through the one send path:
 * the same gates, tracking, retries and DLQ as journey sends.
 */
export const dataEmailRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  app.post(
    '/v1/emails',
    {
      config: { scope: 'ingest' },
      schema: {
        tags,
        summary: 'Send a transactional email (Idempotency-Key header: one email per key, ever)',
        description:
          'status: sent (accepted by the provider), skipped (blocked by preferences or suppression; no send id), failed (given up; parked in the DLQ). ' +
          'Without an Idempotency-Key (header, or idempotencyKey in the body; the header wins) every call sends.',
        headers: z.object({ 'idempotency-key': z.string().trim().min(1).max(255).optional() }).passthrough(),
        body: z.object({
          templateKey: z.string().trim().min(1).max(200),
          to: emailField,
          data: z.record(z.string(), z.unknown()).default({}),
          userId: z.string().trim().min(1).max(512).optional(),
          category: z.string().trim().min(1).max(100).optional(),
          idempotencyKey: z.string().trim().min(1).max(255).optional(),
        }),
        response: {
          202: z.object({ emailSendId: z.uuid().nullable(), status: z.enum(['sent', 'skipped', 'failed', 'deferred']), reason: z.string().optional() }),
          ...bearerErrors,
        },
      },
    },
    async (request, reply) => {
      const { idempotencyKey: bodyKey, data, ...rest } = request.body;
      const key = request.headers['idempotency-key'] ?? bodyKey ?? randomUUID();
      let result;
      try {
        result = await sendEmail(deps.email, { ...rest, data: data as JsonObject, idempotencyKey: `api:${key}` });
      } catch (error) {
        if (isAppError(error)) throw error;
        // the provider failed and the send path left the row for a retry: same key, no duplicate
        throw new AppError('unavailable', `The email provider did not accept the message; retry with the same Idempotency-Key (${(error as Error).message})`);
      }
      return reply.status(202).send({
        emailSendId: result.emailSendId ?? null,
        status: result.status,
        ...('reason' in result ? { reason: result.reason } : {}),
      });
    },
  );
};
