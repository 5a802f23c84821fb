import { z } from 'zod';
import type { JsonObject } from '@waymark/core/db/schema';
import { renderSentEmail } from '@waymark/core/templates/render-sent-email';
import { sendTestEmail } from '@waymark/core/templates/send-test-email';
import { providerRefusal } from '@waymark/core/emails/provider-refusal';
import { listTemplates, previewLinks, renderTemplatePreview } from '@waymark/core/templates/template-catalog';
import type { AppDeps } from '../../deps';
import type { RoutePlugin } from '../../http/type-provider';
import { bearerErrors, errorBody } from '../../schemas/common';
import { emailField, localeTag } from '../../schemas/contacts';

const templateSchema = z
  .object({
    key: z.string(),
    description: z.string().nullable(),
    category: z.string(),
    sampleData: z.record(z.string(), z.unknown()),
    dataSchema: z.record(z.string(), z.unknown()).describe('the data its props schema accepts (JSON Schema), as POST /v1/emails checks it'),
    locales: z.array(z.string()).describe('the languages its message catalog speaks (BCP 47), its default first (docs/email.md, "Languages")'),
  })
  .meta({ id: 'EmailTemplate' });

const renderedSchema = z
  .object({
    subject: z.string(),
    category: z.string(),
    html: z.string(),
    text: z.string(),
    locale: z.string().describe("the template's locale it was rendered in: the asked locale, else its fallback (fr-CA → fr → the template's default)"),
  })
  .meta({ id: 'RenderedTemplate' });

const keyParams = z.object({ key: z.string().trim().min(1).max(200) });
const templateData = z.record(z.string(), z.unknown());
const tags = ['templates'];

/** The deployment's React Email templates: list, preview with any data, and a test send. */
export const templateRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/v1/admin/templates',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: 'Every email template of this deployment with its sample data',
        response: { 200: z.object({ templates: z.array(templateSchema) }), ...bearerErrors },
      },
    },
    async () => ({ templates: listTemplates(deps.email.templates) }),
  );

  app.post(
    '/v1/admin/templates/:key/render',
    {
      // read-only, but every admin POST is audited; a rendering is recorded as an export of the template
      config: { scope: 'read', audit: { resource: 'email', action: 'export' } },
      schema: {
        tags,
        summary: 'Render a template with the given data (no send, no tracking)',
        description:
          'data is validated against the template schema (400 with the failing fields); omitted, the sample data is used. ' +
          "locale: render as for a contact with that `locale` property (fr-CA → fr → the template's default); omitted, the template's default.",
        params: keyParams,
        body: z.object({ data: templateData.optional(), locale: localeTag.optional() }),
        response: { 200: renderedSchema, 404: errorBody, ...bearerErrors },
      },
    },
    async (request) => {
      const template = deps.email.templates.find(request.params.key);
      const data = request.body.data ?? template?.sampleData;
      request.auditRecord = { resourceId: request.params.key, detail: { preview: true } };
      return renderTemplatePreview(deps.email.templates, request.params.key, data, previewLinks(deps.email.publicUrl), request.body.locale);
    },
  );

  app.post(
    '/v1/admin/templates/:key/send-test',
    {
      config: { scope: 'journey-admin', audit: { resource: 'email', action: 'create' } },
      schema: {
        tags,
        summary: 'Send the template to one address through the normal send path',
        description: 'status: sent, skipped (the address is unsubscribed or suppressed) or failed (parked in the DLQ).',
        params: keyParams,
        body: z.object({
          to: emailField,
          data: templateData.default({}),
          locale: localeTag.optional().describe("the language to send it in, as for a contact with that `locale` property; omitted, the template's default"),
        }),
        response: {
          202: z.object({ emailSendId: z.uuid().nullable(), status: z.enum(['sent', 'skipped', 'failed', 'deferred']), reason: z.string().optional() }),
          404: errorBody,
          ...bearerErrors,
        },
      },
    },
    async (request, reply) => {
      let result;
      try {
        result = await sendTestEmail(deps.email, {
          templateKey: request.params.key,
          to: request.body.to,
          data: request.body.data as JsonObject,
          locale: request.body.locale,
        });
      } catch (error) {
        throw providerRefusal(error) ?? error;
      }
      request.auditRecord = { resourceId: result.emailSendId ?? null, detail: { templateKey: request.params.key, to: request.body.to, test: true } };
      return reply.status(202).send({
        emailSendId: result.emailSendId ?? null,
        status: result.status,
        ...('reason' in result ? { reason: result.reason } : {}),
      });
    },
  );

  app.get(
    '/v1/admin/emails/:id/rendered',
    {
      config: { scope: 'read' },
      schema: {
        tags: ['emails'],
        summary: 'The HTML, text and headers of a send, rebuilt from its template and data',
        description:
          'Rendered without tracking links or the open pixel, so viewing it records nothing. 404 when the send is unknown, its template has been removed, or its recipient was erased (the data it was rendered from went with them: docs/operations.md, "Contacts").',
        params: z.object({ id: z.uuid() }),
        response: {
          200: z.object({ subject: z.string(), html: z.string(), text: z.string(), headers: z.record(z.string(), z.string()) }),
          404: errorBody,
          ...bearerErrors,
        },
      },
    },
    async (request) => renderSentEmail(deps.db, deps.email, request.params.id),
  );
};
