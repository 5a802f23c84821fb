import { randomBytes } from 'node:crypto';
import type { EncryptionKey } from '../../config/encryption-keys';
import type { Db } from '../../db/database';
import { openSecret, resealSecret, sealSecret, type SecretKeys } from '../../tokens/sealed-secret';

/**
 * A standard-webhooks signing secret: `whsec_` + base64 of 32 random bytes (the format the
 * `standardwebhooks` and `svix` libraries take as-is on the receiving side).
 */
export function generateEndpointSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * The URL is kept sealed too: receivers such as chat, automation and no-code tools take a URL whose
 * path or query is their own credential, and a dump of the database must not hand it over
 * (docs/security.md, "What is kept secret, and where"). The admin API shows it opened.
 */
export function sealEndpointUrl(keys: SecretKeys, url: string): string {
  return sealSecret(keys, url, 'webhook endpoint URL');
}

/** The URL a delivery posts to and the admin API shows; one stored before sealing reads as it is. */
export function openEndpointUrl(keys: SecretKeys, stored: string): string {
  return openSecret(keys, stored, 'webhook endpoint URL');
}

/**
 * `waymark secrets reseal`: every endpoint's secret and URL under the newest key (those kept in
 * clear before sealing too), so an older key can then be dropped. Answers how many of each
 * changed; a second run changes none. A rotation or an edit between the read and the write wins:
 * the write is skipped.
 */
export async function resealEndpointSecrets(db: Db, keys: readonly EncryptionKey[]): Promise<{ secrets: number; urls: number }> {
  const rows = await db.selectFrom('webhookEndpoints').select(['id', 'secret', 'url']).execute();
  const changed = { secrets: 0, urls: 0 };
  for (const row of rows) {
    const secret = resealSecret(keys, row.secret, 'webhook endpoint secret');
    if (secret !== undefined) {
      const result = await db.updateTable('webhookEndpoints').set({ secret }).where('id', '=', row.id).where('secret', '=', row.secret).executeTakeFirst();
      changed.secrets += Number(result.numUpdatedRows);
    }
    const url = resealSecret(keys, row.url, 'webhook endpoint URL');
    if (url !== undefined) {
      const result = await db.updateTable('webhookEndpoints').set({ url }).where('id', '=', row.id).where('url', '=', row.url).executeTakeFirst();
      changed.urls += Number(result.numUpdatedRows);
    }
  }
  return changed;
}
