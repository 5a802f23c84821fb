import { z } from 'zod';
import {
  alertChannels,
  alertTypes,
  createAlertRule,
  DEFAULT_COOLDOWN_MINUTES,
  deleteAlertRule,
  listAlertHistory,
  listAlertRules,
  updateAlertRule,
} from '@waymark/core/alerts/alert-rules';
import type { AppDeps } from '../../deps';
import type { RoutePlugin } from '../../http/type-provider';
import { bearerErrors, errorBody, listEnvelope, nullableTimestamp, page, paginationQuery, timestamp } from '../../schemas/common';

const alertRuleSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    type: z.enum(alertTypes),
    threshold: z.number(),
    channel: z.enum(alertChannels),
    channelConfig: z.record(z.string(), z.unknown()),
    cooldownMinutes: z.number(),
    enabled: z.boolean(),
    lastTriggeredAt: nullableTimestamp,
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'AlertRule' });

const alertHistorySchema = z
  .object({
    id: z.uuid(),
    ruleId: z.uuid(),
    ruleName: z.string(),
    type: z.string(),
    currentValue: z.number(),
    threshold: z.number(),
    channel: z.string(),
    delivered: z.boolean(),
    triggeredAt: timestamp,
  })
  .meta({ id: 'AlertHistoryEntry' });

const ruleFields = {
  name: z.string().trim().min(1).max(200),
  type: z.enum(alertTypes),
  threshold: z.number().finite(),
  channel: z.enum(alertChannels),
  // checked against the channel in core (webhook {url}, chat {webhookUrl, channel?}, email {to})
  channelConfig: z.record(z.string(), z.unknown()),
  cooldownMinutes: z.number().int().min(0).max(10_080),
  enabled: z.boolean(),
};

const ruleParams = z.object({ id: z.uuid() });
const tags = ['alerts'];

/** SPEC §4 Admin: alerts (full-admin). Evaluation: temporal/workflows/alerts.ts, docs/operations.md. */
export const alertRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/v1/admin/alerts/rules',
    {
      config: { scope: 'full-admin' },
      schema: { tags, summary: 'List alert rules', response: { 200: z.object({ rules: z.array(alertRuleSchema) }), ...bearerErrors } },
    },
    async () => ({ rules: await listAlertRules(deps.db) }),
  );

  app.post(
    '/v1/admin/alerts/rules',
    {
      config: { scope: 'full-admin', audit: { resource: 'alert-rule', action: 'create' } },
      schema: {
        tags,
        summary: `Create an alert rule (cooldownMinutes defaults to ${DEFAULT_COOLDOWN_MINUTES})`,
        body: z.object({ ...ruleFields, cooldownMinutes: ruleFields.cooldownMinutes.optional(), enabled: ruleFields.enabled.optional() }),
        response: { 201: alertRuleSchema, ...bearerErrors },
      },
    },
    async (request, reply) => {
      const rule = await createAlertRule(deps.db, request.body);
      request.auditRecord = { resourceId: rule.id, detail: { name: rule.name, type: rule.type, channel: rule.channel } };
      return reply.status(201).send(rule);
    },
  );

  app.patch(
    '/v1/admin/alerts/rules/:id',
    {
      config: { scope: 'full-admin', audit: { resource: 'alert-rule', action: 'update' } },
      schema: {
        tags,
        summary: 'Update an alert rule (the merged rule is validated; a new channel needs its channelConfig)',
        params: ruleParams,
        body: z.object(ruleFields).partial(),
        response: { 200: alertRuleSchema, 404: errorBody, ...bearerErrors },
      },
    },
    async (request) => {
      const rule = await updateAlertRule(deps.db, request.params.id, request.body);
      request.auditRecord = { resourceId: rule.id, detail: { fields: Object.keys(request.body) } };
      return rule;
    },
  );

  app.delete(
    '/v1/admin/alerts/rules/:id',
    {
      config: { scope: 'full-admin', audit: { resource: 'alert-rule', action: 'delete' } },
      schema: {
        tags,
        summary: 'Delete an alert rule (and its history)',
        params: ruleParams,
        response: { 200: z.object({ deleted: z.literal(true) }), 404: errorBody, ...bearerErrors },
      },
    },
    async (request) => {
      await deleteAlertRule(deps.db, request.params.id);
      return { deleted: true as const };
    },
  );

  app.get(
    '/v1/admin/alerts/history',
    {
      config: { scope: 'full-admin' },
      schema: {
        tags,
        summary: 'Alert history, newest first',
        querystring: paginationQuery.extend({ ruleId: z.uuid().optional() }),
        response: { 200: listEnvelope('alerts', alertHistorySchema), ...bearerErrors },
      },
    },
    async (request) => {
      return page(request.query, await listAlertHistory(deps.db, request.query));
    },
  );
};
