import { sql } from 'kysely';
import type { EncryptionKey } from '../config/encryption-keys';
import type { Db } from '../db/database';
import type { AlertChannel, AlertRuleRow, JsonObject } from '../db/schema';
import type { SealPurpose } from '../tokens/sealed-bytes';
import { openSecret, resealSecret, sealSecret, type SecretKeys } from '../tokens/sealed-secret';

/**
 * The channelConfig fields that are secrets: a chat incoming-webhook URL is itself the credential
 * that posts to the channel, and so is an alert webhook's URL (its posts are not signed, and such
 * URLs often carry a token). They are kept sealed under ENCRYPTION_KEYS (docs/security.md, "What
 * is kept secret, and where"), each bound to its use, and opened for the API and for delivery,
 * which show and use them as before.
 */
const secretFields: Readonly<Partial<Record<AlertChannel, { field: string; purpose: SealPurpose }>>> = {
  chat: { field: 'webhookUrl', purpose: 'alert chat webhook URL' },
  webhook: { field: 'url', purpose: 'alert webhook URL' },
};

function secretOf(channel: AlertChannel, config: JsonObject): { field: string; value: string; purpose: SealPurpose } | undefined {
  const secret = secretFields[channel];
  const value = secret === undefined ? undefined : config[secret.field];
  return secret === undefined || typeof value !== 'string' ? undefined : { ...secret, value };
}

function withSecret(channel: AlertChannel, config: JsonObject, change: (value: string, purpose: SealPurpose) => string): JsonObject {
  const secret = secretOf(channel, config);
  return secret === undefined ? config : { ...config, [secret.field]: change(secret.value, secret.purpose) };
}

/** channelConfig as it is stored: its secret field sealed under the newest key. */
export function sealChannelConfig(keys: SecretKeys, channel: AlertChannel, config: JsonObject): JsonObject {
  return withSecret(channel, config, (value, purpose) => sealSecret(keys, value, purpose));
}

/** channelConfig as it was given: its secret field opened (one kept in clear before sealing is as it is). */
export function openChannelConfig(keys: SecretKeys, channel: AlertChannel, config: JsonObject): JsonObject {
  return withSecret(channel, config, (value, purpose) => openSecret(keys, value, purpose));
}

/** A rule as the API shows it and delivery uses it: its channelConfig opened. */
export function openAlertRule<Rule extends Pick<AlertRuleRow, 'channel' | 'channelConfig'>>(keys: SecretKeys, rule: Rule): Rule {
  return { ...rule, channelConfig: openChannelConfig(keys, rule.channel, rule.channelConfig) };
}

/** The stored channelConfig with its secret under the newest key, or undefined when it already is (or has none). */
function resealChannelConfig(keys: readonly EncryptionKey[], channel: AlertChannel, config: JsonObject): JsonObject | undefined {
  const secret = secretOf(channel, config);
  const resealed = secret === undefined ? undefined : resealSecret(keys, secret.value, secret.purpose);
  return secret === undefined || resealed === undefined ? undefined : { ...config, [secret.field]: resealed };
}

/**
 * `waymark secrets reseal`: every alert rule's secret under the newest key (one kept in clear
 * before sealing too). Answers how many rows changed; a second run changes none. An update
 * between the read and the write wins: the write is skipped.
 */
export async function resealAlertSecrets(db: Db, keys: readonly EncryptionKey[]): Promise<number> {
  const rows = await db.selectFrom('alertRules').select(['id', 'channel', 'channelConfig']).execute();
  let changed = 0;
  for (const row of rows) {
    const channelConfig = resealChannelConfig(keys, row.channel, row.channelConfig);
    if (channelConfig === undefined) continue;
    const result = await db
      .updateTable('alertRules')
      .set({ channelConfig: JSON.stringify(channelConfig) })
      .where('id', '=', row.id)
      .where(sql<boolean>`channel_config = ${JSON.stringify(row.channelConfig)}::jsonb`)
      .executeTakeFirst();
    changed += Number(result.numUpdatedRows);
  }
  return changed;
}
