import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { JsonObject } from '@waymark/core/db/schema';
import { checkCallerSend } from '@waymark/core/emails/caller-sends';
import { sendEmail } from '@waymark/core/emails/send-email';
import { providerRefusal } from '@waymark/core/emails/provider-refusal';
import { contactLocale } from '@waymark/core/contacts/locale';
import type { AppDeps } from '../../deps';
import type { RoutePlugin } from '../../http/type-provider';
import { bearerErrors, inputJsonSchema, text, timestamp } from '../../schemas/common';
import { emailField, localeTag } from '../../schemas/contacts';

const tags = ['data-plane'];

/**
 * Data plane: a transactional send (scope ingest or full-admin) through the one send path:
 * the same gates, tracking, retries and DLQ as journey sends.
 */
export const dataEmailRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  // each registered template, with the data its props schema accepts, stated in the document
  const templateBranches = deps.email.templates
    .keys()
    .filter((key) => deps.email.templates.find(key)!.systemOnly !== true)
    .map((key) => {
      const schema = deps.email.templates.find(key)!.schema;
      return {
        required: schema.safeParse({}).success ? [] : ['data'],
        properties: { templateKey: { const: key }, data: inputJsonSchema(schema) },
      };
    });
  app.post(
    '/v1/emails',
    {
      config: { scope: 'ingest' },
      schema: {
        tags,
        summary: 'Send a transactional email (Idempotency-Key header: one email per key, ever)',
        description:
          'The templates Waymark sends itself (`auth-*`) are refused (400), and so is a required `category` the template does not declare. ' +
          'status: sent (accepted by the provider), skipped (blocked by preferences or suppression; no send id; a retry with the same Idempotency-Key asks again, so a recipient suppressed or unsubscribed since an earlier attempt that sent nothing is skipped too: docs/email.md, "The send path"), failed (given up; parked in the DLQ), ' +
          'deferred (reason send_rate: the installation\'s send budget is taken until retryAt; the slot is kept for this Idempotency-Key: call again with it at retryAt; docs/email.md, "Send rate"; reason reputation or warmup: marketing mail held by the reputation breaker, or past today\'s warm-up allowance, until retryAt; docs/email.md, "Deliverability"). ' +
          'Without an Idempotency-Key (header, or idempotencyKey in the body; the header wins) every call sends. ' +
          "503: the email provider refused the message (its reason given) or could not be reached (the connection's error code alone, never the provider's address); nothing was sent: retry with the same Idempotency-Key. " +
          'The email speaks the recipient\'s language: `locale` if given, else the `locale` property of the contact with this userId (else this address), fr-CA → fr → the template\'s default; no contact: the default (docs/email.md, "Languages").',
        headers: z.object({ 'idempotency-key': text(255).optional() }).passthrough(),
        body: z
          .object({
            templateKey: text(200),
            to: emailField,
            data: z.record(z.string(), z.unknown()).default({}),
            userId: text(512).optional(),
            category: text(100).optional(),
            idempotencyKey: text(255).optional(),
            locale: localeTag.optional().describe("BCP 47; overrides the contact's `locale` property for this email"),
          })
          .meta({ anyOf: templateBranches }),
        response: {
          202: z.object({
            emailSendId: z.uuid().nullable(),
            status: z.enum(['sent', 'skipped', 'failed', 'deferred']),
            reason: z.string().optional(),
            retryAt: timestamp.optional(),
          }),
          ...bearerErrors,
        },
      },
    },
    async (request, reply) => {
      const { idempotencyKey: bodyKey, data, locale, ...rest } = request.body;
      checkCallerSend(deps.email, rest);
      const key = request.headers['idempotency-key'] ?? bodyKey ?? randomUUID();
      let result;
      try {
        result = await sendEmail(deps.email, {
          ...rest,
          data: data as JsonObject,
          idempotencyKey: `api:${key}`,
          locale: locale ?? (await contactLocale(deps.db, { userId: rest.userId, email: rest.to })),
        });
      } catch (error) {
        // the provider failed and the send path left the row for a retry: same key, no duplicate
        throw providerRefusal(error, '; retry with the same Idempotency-Key') ?? error;
      }
      return reply.status(202).send({
        emailSendId: result.emailSendId ?? null,
        status: result.status,
        ...('reason' in result ? { reason: result.reason } : {}),
        ...(result.status === 'deferred' ? { retryAt: result.retryAt } : {}),
      });
    },
  );
};
