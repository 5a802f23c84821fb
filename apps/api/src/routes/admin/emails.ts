import { z } from 'zod';
import { getEmailSendDetail, listEmailSends } from '@waymark/core/emails/email-admin';
import { journeyStatuses } from '@waymark/core/journeys/journey-states';
import { machineReasons } from '@waymark/core/db/schema';
import type { RoutePlugin } from '../../http/type-provider';
import type { AppDeps } from '../../deps';
import { bearerErrors, dateRangeQuery, errorBody, listEnvelope, nullableTimestamp, page, paginationQuery, text, timestamp } from '../../schemas/common';

export const emailStatuses = [
  'queued',
  'rendered',
  'sent',
  'delivered',
  'opened',
  'clicked',
  'bounced',
  'complained',
  'failed',
  'cancelled',
  'unknown_dropped',
] as const;

const hitCounts = z.object({ human: z.number().int(), machine: z.number().int() }).meta({ id: 'HitCounts' });

/** docs/email.md, "Machine opens and clicks" */
const machineVerdict = {
  machine: z.boolean().describe('made by a machine (link scanner, mail proxy, crawler), not a person'),
  machineReason: z
    .enum(machineReasons)
    .nullable()
    .describe(
      'why: head_request (a HEAD), scanner_user_agent (a known scanner or crawler), apple_mpp (Apple Mail Privacy Protection prefetch), too_fast (links of the email clicked together right after the send), honeypot (the invisible link); null for a person',
    ),
};

/** Only the documented fields leave: the schema strips internal columns (data, send bookkeeping). */
export const emailSendSchema = z
  .object({
    id: z.uuid(),
    journeyStateId: z.uuid().nullable(),
    templateKey: z.string(),
    providerMessageId: z.string().nullable(),
    fromEmail: z.string(),
    toEmail: z.string(),
    subject: z.string(),
    category: z.string(),
    locale: z
      .string()
      .nullable()
      .describe(
        "the language it was rendered in (BCP 47): the template's locale for the recipient contact's `locale` property, fr-CA → fr → the template's default (docs/email.md, \"Languages\"); null for sends from before languages",
      ),
    status: z.enum(emailStatuses),
    sentAt: nullableTimestamp,
    deliveredAt: nullableTimestamp,
    openedAt: nullableTimestamp.describe('first open of any kind, a machine’s included'),
    clickedAt: nullableTimestamp.describe('first click of any kind, a machine’s included'),
    humanOpenedAt: nullableTimestamp.describe('first open by a person'),
    humanClickedAt: nullableTimestamp.describe('first click by a person'),
    opens: hitCounts.describe('pixel fetches: by people, by machines'),
    clicks: hitCounts.describe('tracked-link clicks: by people, by machines'),
    bouncedAt: nullableTimestamp,
    complainedAt: nullableTimestamp,
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'EmailSend' });

const trackedLinkSchema = z
  .object({
    id: z.uuid(),
    originalUrl: z.string().describe('empty for the honeypot link'),
    clickCount: z.number(),
    honeypot: z.boolean().describe('the invisible link every tracked email carries: only machines follow it'),
    clicks: z.array(z.object({ id: z.uuid(), clickedAt: timestamp, ipAddress: z.string().nullable(), userAgent: z.string().nullable(), ...machineVerdict })),
  })
  .meta({ id: 'TrackedLink' });

const tags = ['emails'];

/** Admin plane: emails (read). */
export const adminEmailRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/v1/admin/emails',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: 'List email sends, newest first',
        querystring: paginationQuery.extend({
          toEmail: text(320).optional(),
          templateKey: text(200).optional(),
          status: z.enum(emailStatuses).optional(),
          ...dateRangeQuery,
        }),
        response: { 200: listEnvelope('emails', emailSendSchema), ...bearerErrors },
      },
    },
    async (request) => {
      return page(request.query, await listEmailSends(deps.db, request.query));
    },
  );

  app.get(
    '/v1/admin/emails/:id',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: 'An email send with its tracked links (and their clicks), its latest opens and its journey context',
        params: z.object({ id: z.uuid() }),
        response: {
          200: z.object({
            email: emailSendSchema,
            trackedLinks: z.array(trackedLinkSchema),
            recentOpens: z
              .array(z.object({ id: z.uuid(), openedAt: timestamp, ipAddress: z.string().nullable(), userAgent: z.string().nullable(), ...machineVerdict }))
              .describe('the latest 100 pixel fetches, newest first'),
            journeyContext: z
              .object({
                journeyId: z.string(),
                userId: z.string(),
                status: z.enum(journeyStatuses),
                currentNodeId: z.string(),
              })
              .nullable(),
          }),
          404: errorBody,
          ...bearerErrors,
        },
      },
    },
    async (request) => {
      const detail = await getEmailSendDetail(deps.db, request.params.id);
      return detail;
    },
  );
};
