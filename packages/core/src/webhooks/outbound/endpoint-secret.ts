import { randomBytes } from 'node:crypto';
import type { EncryptionKey } from '../../config/encryption-keys';
import type { Db } from '../../db/database';
import { resealSecret } from '../../tokens/sealed-secret';

/**
 * A standard-webhooks signing secret: `whsec_` + base64 of 32 random bytes (the format the
 * `standardwebhooks` and `svix` libraries take as-is on the receiving side).
 */
export function generateEndpointSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * `waymark secrets reseal`: every endpoint's secret under the newest key (one kept in clear
 * before sealing too), so an older key can then be dropped. Answers how many rows changed; a
 * second run changes none. A rotation between the read and the write wins: the write is skipped.
 */
export async function resealEndpointSecrets(db: Db, keys: readonly EncryptionKey[]): Promise<number> {
  const rows = await db.selectFrom('webhookEndpoints').select(['id', 'secret']).execute();
  let changed = 0;
  for (const row of rows) {
    const secret = resealSecret(keys, row.secret, 'webhook endpoint secret');
    if (secret === undefined) continue;
    const result = await db.updateTable('webhookEndpoints').set({ secret }).where('id', '=', row.id).where('secret', '=', row.secret).executeTakeFirst();
    changed += Number(result.numUpdatedRows);
  }
  return changed;
}
