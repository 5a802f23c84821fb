import { z } from 'zod';
import { getEmailSendDetail, listEmailSends } from '@waymark/core/emails/email-admin';
import { journeyStatuses } from '@waymark/core/journeys/journey-states';
import type { RoutePlugin } from '../../http/type-provider';
import type { AppDeps } from '../../deps';
import { bearerErrors, errorBody, dateRangeQuery, listEnvelope, nullableTimestamp, page, paginationQuery, timestamp } from '../../schemas/common';

export const emailStatuses = ['queued', 'rendered', 'sent', 'delivered', 'opened', 'clicked', 'bounced', 'complained', 'failed'] as const;

/** Only these SPEC fields leave: the schema strips internal columns (data, send bookkeeping). */
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
    status: z.enum(emailStatuses),
    sentAt: nullableTimestamp,
    deliveredAt: nullableTimestamp,
    openedAt: nullableTimestamp,
    clickedAt: nullableTimestamp,
    bouncedAt: nullableTimestamp,
    complainedAt: nullableTimestamp,
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'EmailSend' });

const trackedLinkSchema = z
  .object({
    id: z.uuid(),
    originalUrl: z.string(),
    clickCount: z.number(),
    clicks: z.array(z.object({ id: z.uuid(), clickedAt: timestamp, ipAddress: z.string().nullable(), userAgent: z.string().nullable() })),
  })
  .meta({ id: 'TrackedLink' });

const tags = ['emails'];

/** SPEC §4 Admin: emails (read). */
export const adminEmailRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/v1/admin/emails',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: 'List email sends, newest first',
        querystring: paginationQuery.extend({
          toEmail: z.string().trim().min(1).max(320).optional(),
          templateKey: z.string().trim().min(1).max(200).optional(),
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
        summary: 'An email send with its tracked links (and their clicks) and its journey context',
        params: z.object({ id: z.uuid() }),
        response: {
          200: z.object({
            email: emailSendSchema,
            trackedLinks: z.array(trackedLinkSchema),
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
