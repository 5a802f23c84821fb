import { z } from 'zod';
import {
  alertChannels,
  alertTypes,
  channelConfigSchemas,
  countAlertTypes,
  createAlertRule,
  DEFAULT_COOLDOWN_MINUTES,
  deleteAlertRule,
  listAlertHistory,
  listAlertRules,
  updateAlertRule,
} from '@waymark/core/alerts/alert-rules';
import type { AppDeps } from '../../deps';
import type { RoutePlugin } from '../../http/type-provider';
import { bearerErrors, errorBody, inputJsonSchema, listEnvelope, nullableTimestamp, page, paginationQuery, text, timestamp } from '../../schemas/common';

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
  name: text(200),
  type: z.enum(alertTypes),
  threshold: z.number().finite().min(0),
  channel: z.enum(alertChannels),
  // checked against the channel in core (webhook {url}, chat {webhookUrl, channel?}, email {to})
  channelConfig: z.record(z.string(), z.unknown()),
  cooldownMinutes: z.number().int().min(0).max(10_080),
  enabled: z.boolean(),
};

/**
 * The pairings core checks (channelConfig per channel; threshold range per type), stated in the
 * document too: `allOf` of two `anyOf`s, each branch fixing one channel or type. A PATCH may
 * leave a field out (the stored value applies), but a new channel needs its channelConfig.
 */
const ratioTypes = alertTypes.filter((type) => !countAlertTypes.includes(type));
const channelBranches = alertChannels.map((channel) => ({
  required: ['channelConfig'],
  properties: { channel: { const: channel }, channelConfig: inputJsonSchema(channelConfigSchemas[channel]) },
}));
const typeBranches = [
  { properties: { type: { enum: countAlertTypes }, threshold: { minimum: 0 } } },
  { properties: { type: { enum: ratioTypes }, threshold: { minimum: 0, maximum: 1 } } },
];
/** Every (channel, type) combination as one flat anyOf branch (nested allOf/anyOf strains generators). */
function combine(channels: object[], types: object[]): { anyOf: object[] } {
  return { anyOf: channels.flatMap((channel) => types.map((type) => ({ allOf: [channel, type] }))) };
}
const pairings = combine(channelBranches, typeBranches);
const patchPairings = {
  ...combine([{ not: { required: ['channel'] } }, ...channelBranches], [{ not: { required: ['type'] } }, ...typeBranches]),
  dependentRequired: { channel: ['channelConfig'], channelConfig: ['channel'] },
};

const ruleParams = z.object({ id: z.uuid() });
const tags = ['alerts'];

/** Admin plane: alerts (full-admin). Evaluation: temporal/workflows/alerts.ts, docs/operations.md. */
export const alertRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/v1/admin/alerts/rules',
    {
      config: { scope: 'full-admin' },
      schema: { tags, summary: 'List alert rules', response: { 200: z.object({ rules: z.array(alertRuleSchema) }), ...bearerErrors } },
    },
    async () => ({ rules: await listAlertRules(deps.db, deps.config.encryptionKeys) }),
  );

  app.post(
    '/v1/admin/alerts/rules',
    {
      config: { scope: 'full-admin', audit: { resource: 'alert-rule', action: 'create' } },
      schema: {
        tags,
        summary: `Create an alert rule (cooldownMinutes defaults to ${DEFAULT_COOLDOWN_MINUTES})`,
        description:
          'channelConfig by channel: webhook `{url}`, chat `{webhookUrl, channel?}`, email `{to}`. threshold: a count ≥ 0 for journey_failure_spike and webhook_endpoint_disabled, a ratio 0–1 for the other types.',
        body: z.object({ ...ruleFields, cooldownMinutes: ruleFields.cooldownMinutes.optional(), enabled: ruleFields.enabled.optional() }).meta(pairings),
        response: { 201: alertRuleSchema, ...bearerErrors },
      },
    },
    async (request, reply) => {
      const rule = await createAlertRule(deps.db, deps.config.encryptionKeys, request.body);
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
        description:
          'Fields left out keep their stored values, and the merged rule must be valid: a threshold without a type must suit the stored type. channel and channelConfig go together.',
        params: ruleParams,
        body: z
          .object(ruleFields)
          .partial()
          .refine((body) => (body.channel === undefined) === (body.channelConfig === undefined), {
            message: 'channel and channelConfig go together',
            path: ['channelConfig'],
          })
          .meta(patchPairings),
        response: { 200: alertRuleSchema, 404: errorBody, ...bearerErrors },
      },
    },
    async (request) => {
      const rule = await updateAlertRule(deps.db, deps.config.encryptionKeys, request.params.id, request.body);
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
