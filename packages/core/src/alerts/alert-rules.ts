import { z } from 'zod';
import type { Db } from '../db/database';
import type { AlertChannel, AlertHistoryRow, AlertRuleRow, AlertType, JsonObject } from '../db/schema';
import { emailAddress } from '../contacts/email-address';
import { badRequest, notFound } from '../errors/app-error';
import { paginate } from '../db/paginate';
import type { SecretKeys } from '../tokens/sealed-secret';
import { openAlertRule, sealChannelConfig } from './channel-secrets';

export const alertTypes = [
  'bounce_rate_exceeded',
  'journey_failure_spike',
  'delivery_issue',
  'high_complaint_rate',
  'webhook_endpoint_disabled',
] as const satisfies readonly AlertType[];
export const alertChannels = ['webhook', 'chat', 'email'] as const satisfies readonly AlertChannel[];
/** Types whose threshold is a count (≥ 0); every other type's is a ratio in [0, 1]. */
export const countAlertTypes: readonly AlertType[] = ['journey_failure_spike', 'webhook_endpoint_disabled'];
export const DEFAULT_COOLDOWN_MINUTES = 60;

/**
 * An http(s) URL with a named host. The pattern is checked too (not only stated in the OpenAPI
 * document), so the document's `format: uri` + `pattern` and the server accept the same URLs:
 * RFC 3986 characters only, a host whose last label starts with a letter or a dotted IPv4 address (the
 * SSRF guard decides whether it may be reached), a port up to 65535.
 */
const HTTP_URL =
  /^https?:\/\/(?:(?:[A-Za-z0-9-]+\.)*[A-Za-z][A-Za-z0-9-]*|(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])(?:\.(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])){3})(?::(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4}))?(?:[/?#][A-Za-z0-9\-._~:/?#@!$&'()*+,;=]*)?$/;
const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).regex(HTTP_URL, 'must be an http(s) URL');

/** channelConfig per channel (docs/operations.md, Alerts). */
export const channelConfigSchemas = {
  webhook: z.object({ url: httpUrl }),
  chat: z.object({ webhookUrl: httpUrl, channel: z.string().min(1).optional() }),
  email: z.object({ to: emailAddress }),
} as const;

export type WebhookConfig = z.infer<typeof channelConfigSchemas.webhook>;
export type ChatConfig = z.infer<typeof channelConfigSchemas.chat>;
export type EmailChannelConfig = z.infer<typeof channelConfigSchemas.email>;

/** Alert rule: the stored row, its channelConfig's secret opened (channel-secrets.ts). */
export type AlertRule = AlertRuleRow;

/** Alert history entry: the stored row less the delivery error (kept for operators' logs). */
const historyColumns = ['id', 'ruleId', 'ruleName', 'type', 'currentValue', 'threshold', 'channel', 'delivered', 'triggeredAt'] as const;
export type AlertHistoryEntry = Pick<AlertHistoryRow, (typeof historyColumns)[number]>;

/** channelConfig must match its channel; the stored value is the parsed one (unknown keys dropped). */
export function parseChannelConfig(channel: AlertChannel, config: unknown): JsonObject {
  const result = channelConfigSchemas[channel].safeParse(config);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = ['channelConfig', ...(issue?.path ?? [])].join('.');
    throw badRequest(`Invalid ${channel} channelConfig: ${where} ${issue?.message ?? 'is invalid'}`);
  }
  return result.data as JsonObject;
}

function checkThreshold(type: AlertType, threshold: number): void {
  if (countAlertTypes.includes(type)) {
    if (threshold < 0) throw badRequest(`threshold of ${type} is a count (≥ 0)`);
  } else if (threshold < 0 || threshold > 1) {
    throw badRequest(`threshold of ${type} is a ratio between 0 and 1 (0.05 means 5%)`);
  }
}

export interface AlertRuleInput {
  name: string;
  type: AlertType;
  threshold: number;
  channel: AlertChannel;
  channelConfig: Record<string, unknown>;
  cooldownMinutes?: number | undefined;
  enabled?: boolean | undefined;
}

export async function listAlertRules(db: Db, keys: SecretKeys): Promise<AlertRule[]> {
  const rows = await db.selectFrom('alertRules').selectAll().orderBy('createdAt').orderBy('id').execute();
  return rows.map((row) => openAlertRule(keys, row));
}

async function storedAlertRule(db: Db, id: string): Promise<AlertRuleRow> {
  const row = await db.selectFrom('alertRules').selectAll().where('id', '=', id).executeTakeFirst();
  if (row === undefined) throw notFound('Alert rule not found');
  return row;
}

export async function getAlertRule(db: Db, keys: SecretKeys, id: string): Promise<AlertRule> {
  return openAlertRule(keys, await storedAlertRule(db, id));
}

export async function createAlertRule(db: Db, keys: SecretKeys, input: AlertRuleInput): Promise<AlertRule> {
  checkThreshold(input.type, input.threshold);
  const channelConfig = parseChannelConfig(input.channel, input.channelConfig);
  const row = await db
    .insertInto('alertRules')
    .values({
      name: input.name,
      type: input.type,
      threshold: input.threshold,
      channel: input.channel,
      channelConfig: JSON.stringify(sealChannelConfig(keys, input.channel, channelConfig)),
      cooldownMinutes: input.cooldownMinutes ?? DEFAULT_COOLDOWN_MINUTES,
      enabled: input.enabled ?? true,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { ...row, channelConfig };
}

/** PATCH: the merged rule is validated as a whole (a channel change needs a matching config). */
export async function updateAlertRule(db: Db, keys: SecretKeys, id: string, patch: Partial<AlertRuleInput>): Promise<AlertRule> {
  return db.transaction().execute(async (trx) => {
    // a patch that brings its own channelConfig replaces the stored one unopened: a URL sealed under
    // a key no longer held can be replaced without putting the key back
    const current = await storedAlertRule(trx, id);
    const type = patch.type ?? current.type;
    const threshold = patch.threshold ?? current.threshold;
    const channel = patch.channel ?? current.channel;
    checkThreshold(type, threshold);
    const channelConfig = parseChannelConfig(channel, patch.channelConfig ?? openAlertRule(keys, current).channelConfig);
    const row = await trx
      .updateTable('alertRules')
      .set({
        name: patch.name ?? current.name,
        type,
        threshold,
        channel,
        channelConfig: JSON.stringify(sealChannelConfig(keys, channel, channelConfig)),
        cooldownMinutes: patch.cooldownMinutes ?? current.cooldownMinutes,
        enabled: patch.enabled ?? current.enabled,
        updatedAt: new Date(),
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return { ...row, channelConfig };
  });
}

export async function deleteAlertRule(db: Db, id: string): Promise<void> {
  const result = await db.deleteFrom('alertRules').where('id', '=', id).executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) throw notFound('Alert rule not found');
}

export interface AlertHistoryQuery {
  limit: number;
  offset: number;
  ruleId?: string | undefined;
}

export async function listAlertHistory(db: Db, query: AlertHistoryQuery): Promise<{ alerts: AlertHistoryEntry[]; total: number }> {
  let base = db.selectFrom('alertHistory');
  if (query.ruleId !== undefined) base = base.where('ruleId', '=', query.ruleId);
  const { rows, total } = await paginate(base.select(historyColumns).orderBy('triggeredAt', 'desc').orderBy('id', 'desc'), base, query);
  return { alerts: rows, total };
}
