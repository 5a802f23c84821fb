import { resealAlertSecrets } from '@waymark/core/alerts/channel-secrets';
import type { CommandConfig } from '@waymark/core/config/config';
import type { Db } from '@waymark/core/db/database';
import { resealEndpointSecrets } from '@waymark/core/webhooks/outbound/endpoint-secret';

/**
 * `secrets reseal`: every secret Waymark keeps (webhook endpoints' signing secrets and URLs, alert
 * rules' chat and webhook URLs) under the first key of ENCRYPTION_KEYS, those kept in clear before sealing
 * included, so that a key rotated out can then be dropped (docs/security.md, "What is kept
 * secret, and where"). Running it again changes nothing.
 */
export async function resealSecrets(db: Db, keys: CommandConfig['encryptionKeys']): Promise<number> {
  const newest = keys?.[0];
  if (keys === undefined || newest === undefined) {
    console.error('secrets reseal: ENCRYPTION_KEYS is not set, so there is no key to seal under (docs/deploy.md, "Secrets")');
    return 1;
  }
  const endpoints = await resealEndpointSecrets(db, keys);
  const alertRules = await resealAlertSecrets(db, keys);
  console.log(
    `secrets reseal: sealed under key "${newest.id}": ${endpoints.secrets} webhook endpoint secret(s), ${endpoints.urls} webhook endpoint URL(s), ${alertRules} alert rule webhook URL(s) changed`,
  );
  return 0;
}
