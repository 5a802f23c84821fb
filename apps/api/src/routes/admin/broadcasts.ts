import { z } from 'zod';
import { listBroadcastRecipients } from '@waymark/core/broadcasts/broadcast-recipients';
import {
  abTestSchema,
  broadcastAudienceSchema,
  broadcastGoalSchema,
  broadcastInputSchema,
  broadcastPatchSchema,
  broadcastRecipientStatuses,
  broadcastStatuses,
  broadcastTestSchema,
  broadcastVariantSchema,
} from '@waymark/core/broadcasts/broadcast-schemas';
import { sendBroadcastTest } from '@waymark/core/broadcasts/broadcast-test-send';
import { cancelBroadcast, pauseBroadcast, resumeBroadcast, sendBroadcast } from '@waymark/core/broadcasts/broadcast-transitions';
import { createBroadcast, deleteBroadcast, getBroadcast, listBroadcasts, updateBroadcast } from '@waymark/core/broadcasts/broadcasts';
import type { AppDeps } from '../../deps';
import type { RoutePlugin } from '../../http/type-provider';
import { bearerErrors, errorBody, listEnvelope, nullableTimestamp, page, paginationQuery, timestamp } from '../../schemas/common';
import { outcomeArms, outcomeDay, outcomeLift } from '../../schemas/outcomes';

const count = z.number().int();
const statsSchema = z
  .object({
    sent: count,
    failed: count.describe('failed for good (each one is in the DLQ)'),
    unknownDropped: count.describe(
      'sends whose outcome was unknown (an attempt stopped during the provider call) that the delivery policy dropped rather than risk a duplicate; without SES event publishing only (docs/email.md, "Exactly once")',
    ),
    skipped: z
      .object({
        unsubscribed: count,
        suppressed: count,
        noEmail: count,
        missingData: count,
        frequencyCap: count,
        holdout: count.describe(
          'held out: by the goal\'s holdoutPercent or by the program holdout of journeys/delivery-policy.ts (docs/broadcasts.md, "Goals and holdouts")',
        ),
      })
      .describe('recipients who got no email, by reason'),
    delivered: count,
    bounced: count,
    complained: count,
    opens: z.object({ human: count, machine: count }).describe('emails opened, by people and only by machines (docs/email.md)'),
    clicks: z.object({ human: count, machine: count }),
    unsubscribed: count.describe('recipients who unsubscribed (from everything or this category) after the email was sent'),
    goal: z
      .object({
        goal: z.object({ event: z.string(), within: z.string() }),
        arms: outcomeArms.describe(
          'treatment: recipients not held out whose turn came (their email sent, or skipped by their preferences); holdout: those held out. converted: the goal event arrived within `within` of that moment',
        ),
        lift: outcomeLift.nullable().describe('null until both arms have someone in them, or without a holdout'),
        daily: z
          .array(outcomeDay)
          .describe(
            "per UTC day, oldest first (days with no exposure and no conversion left out): the recipients exposed that day per arm (`enrolled`) and the recipients who converted that day, whenever they were exposed; the running sums are each arm's conversion rate so far, the series the studio draws",
          ),
      })
      .nullable()
      .describe('the goal\'s result, as a journey\'s outcomes; null without a goal (docs/broadcasts.md, "Goals and holdouts")'),
  })
  .meta({ id: 'BroadcastStats' });

const broadcastSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    templateKey: z.string(),
    category: z.string(),
    audience: broadcastAudienceSchema,
    data: z.record(z.string(), z.unknown()),
    subject: z.string().nullable(),
    scheduledAt: nullableTimestamp,
    localTime: z.string().nullable(),
    variants: z.array(broadcastVariantSchema.extend({ winner: z.boolean(), stats: statsSchema }).meta({ id: 'BroadcastVariant' })).nullable(),
    abTest: abTestSchema.nullable(),
    goal: broadcastGoalSchema.nullable(),
    holdoutPercent: z.number().int(),
    status: z.enum(broadcastStatuses),
    audienceSize: z.number().int().nullable().describe('recipients in the snapshot taken when sending started; null before'),
    progress: z.object({ done: count, total: count }).describe('recipients past pending (sent, failed, skipped or cancelled) of audienceSize'),
    stats: statsSchema,
    winnerVariantId: z.string().nullable(),
    error: z.string().nullable(),
    pausedReason: z
      .string()
      .nullable()
      .describe('\'reputation\' when the reputation breaker paused it: resumed when the breaker is (docs/email.md, "Reputation breaker")'),
    warmupUntil: nullableTimestamp.describe(
      'set while today\'s warm-up allowance is spent: the rest of the recipients send from this instant, the next day\'s allowance (docs/email.md, "Warm-up")',
    ),
    createdBy: z.string().nullable(),
    createdAt: timestamp,
    updatedAt: timestamp,
    startedAt: nullableTimestamp,
    completedAt: nullableTimestamp,
  })
  .meta({ id: 'Broadcast' });

const recipientSchema = z
  .object({
    contactId: z.uuid(),
    userId: z.string().nullable(),
    email: z.string().nullable(),
    variantId: z.string().nullable(),
    status: z.enum(broadcastRecipientStatuses),
    reason: z.string().nullable().describe('skipped: unsubscribed, suppressed, no_email, missing_data, frequency_cap or holdout; failed: the error'),
    emailId: z.uuid().nullable(),
  })
  .meta({ id: 'BroadcastRecipient' });

const params = z.object({ id: z.uuid() });
const tags = ['broadcasts'];
const broadcastBody = z.object({ broadcast: broadcastSchema });
const transitionResponses = { 200: broadcastBody, 404: errorBody, 409: errorBody, ...bearerErrors };

/**
 * Broadcasts: one email to an audience (docs/broadcasts.md). Reads need `read`, writes
 * `journey-admin`; the work is packages/core/src/broadcasts/, the sending a workflow per broadcast.
 */
export const broadcastRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  const definitions = { db: deps.db, templates: deps.email.templates, categories: deps.categories };
  const transitions = { db: deps.db, jobs: deps.temporal.jobs };

  app.post(
    '/v1/admin/broadcasts',
    {
      config: { scope: 'journey-admin', audit: { resource: 'broadcast', action: 'create' } },
      schema: {
        tags,
        summary: 'Create a broadcast (a draft: nothing is sent until POST …/send)',
        description:
          "400 naming the field: an unknown template, category, segment or list, or a `data` prop the template does not declare or does not accept. Props `data` leaves out come from each recipient's contact properties.",
        body: broadcastInputSchema,
        response: { 201: broadcastBody, ...bearerErrors },
      },
    },
    async (request, reply) => {
      const broadcast = await createBroadcast(definitions, request.body, request.principal?.actor ?? null);
      request.auditRecord = { resourceId: broadcast.id, detail: { name: broadcast.name } };
      return reply.status(201).send({ broadcast });
    },
  );

  app.get(
    '/v1/admin/broadcasts',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: 'List broadcasts, newest first, with status, progress and stats',
        querystring: paginationQuery,
        response: { 200: listEnvelope('broadcasts', broadcastSchema), ...bearerErrors },
      },
    },
    async (request) => page(request.query, await listBroadcasts(deps.db, request.query)),
  );

  app.get(
    '/v1/admin/broadcasts/:id',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: 'A broadcast with its progress, stats and per-variant stats',
        params,
        response: { 200: broadcastBody, 404: errorBody, ...bearerErrors },
      },
    },
    async (request) => ({ broadcast: await getBroadcast(deps.db, request.params.id) }),
  );

  app.patch(
    '/v1/admin/broadcasts/:id',
    {
      config: { scope: 'journey-admin', audit: { resource: 'broadcast', action: 'update' } },
      schema: {
        tags,
        summary: 'Change a draft broadcast (409 once it has been sent)',
        params,
        body: broadcastPatchSchema,
        response: { 200: broadcastBody, 404: errorBody, 409: errorBody, ...bearerErrors },
      },
    },
    async (request) => {
      const broadcast = await updateBroadcast(definitions, request.params.id, request.body);
      request.auditRecord = { resourceId: broadcast.id, detail: { fields: Object.keys(request.body) } };
      return { broadcast };
    },
  );

  app.delete(
    '/v1/admin/broadcasts/:id',
    {
      config: { scope: 'journey-admin', audit: { resource: 'broadcast', action: 'delete' } },
      schema: {
        tags,
        summary: 'Delete a draft broadcast (409 once it has been sent: cancel it instead)',
        params,
        response: { 200: z.object({ deleted: z.literal(true) }), 404: errorBody, 409: errorBody, ...bearerErrors },
      },
    },
    async (request) => {
      await deleteBroadcast(deps.db, request.params.id);
      request.auditRecord = { resourceId: request.params.id };
      return { deleted: true as const };
    },
  );

  app.post(
    '/v1/admin/broadcasts/:id/send',
    {
      config: { scope: 'journey-admin', audit: { resource: 'broadcast', action: 'send' } },
      schema: {
        tags,
        summary: 'Send a draft: `scheduled` when scheduledAt is ahead, else `sending` (409 unless draft)',
        description:
          'The audience is resolved when sending starts (a snapshot). Each contact gets at most one email per broadcast, whatever is retried: a second send answers 409 and sends nothing.',
        params,
        response: { 202: broadcastBody, 404: errorBody, 409: errorBody, ...bearerErrors },
      },
    },
    async (request, reply) => {
      const broadcast = await sendBroadcast(transitions, request.params.id);
      request.auditRecord = { resourceId: broadcast.id, detail: { status: broadcast.status } };
      return reply.status(202).send({ broadcast });
    },
  );

  const transitionRoutes = [
    { action: 'pause', run: pauseBroadcast, summary: 'Pause a scheduled or sending broadcast (the chunk in flight finishes; nothing more is sent)' },
    { action: 'resume', run: resumeBroadcast, summary: 'Resume a paused broadcast where it stopped' },
    { action: 'cancel', run: cancelBroadcast, summary: 'Cancel a scheduled, sending or paused broadcast: recipients not yet sent are cancelled' },
  ] as const;
  for (const transition of transitionRoutes) {
    app.post(
      `/v1/admin/broadcasts/:id/${transition.action}`,
      {
        config: { scope: 'journey-admin', audit: { resource: 'broadcast', action: transition.action } },
        schema: {
          tags,
          summary: transition.summary,
          description: "409 on a transition the broadcast's status does not have.",
          params,
          response: transitionResponses,
        },
      },
      async (request) => {
        const broadcast = await transition.run(transitions, request.params.id);
        request.auditRecord = { resourceId: broadcast.id };
        return { broadcast };
      },
    );
  }

  app.post(
    '/v1/admin/broadcasts/:id/test',
    {
      config: { scope: 'journey-admin', audit: { resource: 'broadcast', action: 'test' } },
      schema: {
        tags,
        summary: 'Send a copy marked [Test] to up to 5 addresses (not counted in the stats)',
        params,
        body: broadcastTestSchema,
        response: {
          202: z.object({
            results: z.array(
              z.object({
                email: z.string(),
                status: z.enum(['sent', 'skipped', 'failed']),
                emailId: z.uuid().nullable(),
                reason: z.string().nullable(),
              }),
            ),
          }),
          404: errorBody,
          ...bearerErrors,
        },
      },
    },
    async (request, reply) => {
      const results = await sendBroadcastTest(deps.email, request.params.id, request.body.emails);
      request.auditRecord = { resourceId: request.params.id, detail: { emails: request.body.emails.length } };
      return reply.status(202).send({ results });
    },
  );

  app.get(
    '/v1/admin/broadcasts/:id/recipients',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: "The broadcast's recipients in send order, by status and variant",
        params,
        querystring: paginationQuery.extend({ status: z.enum(broadcastRecipientStatuses).optional(), variantId: z.string().max(64).optional() }),
        response: { 200: listEnvelope('recipients', recipientSchema), 404: errorBody, ...bearerErrors },
      },
    },
    async (request) => {
      const { status, variantId, ...pageQuery } = request.query;
      return page(pageQuery, await listBroadcastRecipients(deps.db, request.params.id, { status, variantId }, pageQuery));
    },
  );
};
