import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { deliverAlert } from '@waymark/core/alerts/alert-delivery';
import { loadConfig } from '@waymark/core/config/config';
import type { EncryptionKey } from '@waymark/core/config/encryption-keys';
import { createDatabase, type Db } from '@waymark/core/db/database';
import type { JsonObject } from '@waymark/core/db/schema';
import { sealedKeyId, sealSecret } from '@waymark/core/tokens/sealed-secret';
import { webhookDeliveryDeps } from '@waymark/core/webhooks/outbound/deliver-webhook';
import { runEntry } from '../../../test/run-entry';
import { withScratchDatabase } from '../../../test/scratch-database';
import { integrationEnv } from '../../../test/test-env';
import { deliverTestEvent } from '../../../test/webhook-endpoints';
import { startWebhookReceiver } from '../../../test/webhook-receiver';

const CLI = 'apps/cli/src/main.ts';
const NEW: EncryptionKey = { id: 'key-new', key: new Uint8Array(32).fill(0x2b) };
const OLD: EncryptionKey = { id: 'key-old', key: new Uint8Array(32).fill(0x3c) };
const setting = (keys: EncryptionKey[]) => keys.map((key) => `${key.id}:${Buffer.from(key.key).toString('hex')}`).join(',');

describe('waymark secrets reseal (docs/security.md, "What is kept secret, and where")', () => {
  it('seals rows kept in clear and rows under an older key under the newest one, which alone then delivers; a second run changes nothing', async () => {
    const receiver = await startWebhookReceiver();
    try {
      await withScratchDatabase(async (databaseUrl) => {
        const db = createDatabase({ connectionString: databaseUrl, max: 2 });
        try {
          const endpoint = (url: string, secret: string) =>
            db
              .insertInto('webhookEndpoints')
              .values({ url, events: ['contact.created'], secret })
              .returning('id')
              .executeTakeFirstOrThrow();
          const chatRule = (channelConfig: JsonObject) =>
            db
              .insertInto('alertRules')
              .values({ name: 'bounces', type: 'bounce_rate_exceeded', threshold: 0.1, channel: 'chat', channelConfig: JSON.stringify(channelConfig) })
              .returning('id')
              .executeTakeFirstOrThrow();
          const legacySecret = 'whsec_bGVnYWN5LXNlY3JldC1rZXB0LWluLWNsZWFyLTMyYnl0ZXM=';
          const oldSecret = 'whsec_b2xkLWtleS1zZWNyZXQtc2VhbGVkLXVuZGVyLWtleS1vbGQ=';
          const legacyEndpoint = await endpoint(`${receiver.url}/legacy`, legacySecret);
          const oldEndpoint = await endpoint(
            sealSecret([OLD], `${receiver.url}/old`, 'webhook endpoint URL'),
            sealSecret([OLD], oldSecret, 'webhook endpoint secret'),
          );
          const legacyRule = await chatRule({ webhookUrl: `${receiver.url}/chat/legacy`, channel: '#ops' });
          const oldRule = await chatRule({ webhookUrl: sealSecret([OLD], `${receiver.url}/chat/old`, 'alert chat webhook URL') });
          await db
            .insertInto('alertRules')
            .values({
              name: 'by mail',
              type: 'bounce_rate_exceeded',
              threshold: 0.1,
              channel: 'email',
              channelConfig: JSON.stringify({ to: 'ops@example.com' }),
            })
            .execute();

          const env = { DATABASE_URL: databaseUrl, CACHE_URL: integrationEnv().CACHE_URL, ENCRYPTION_KEYS: setting([NEW, OLD]) };
          const first = await runEntry(CLI, env, { args: ['secrets', 'reseal'] });
          expect(first.code, first.output).toBe(0);
          expect(first.output).toContain(
            'sealed under key "key-new": 2 webhook endpoint secret(s), 2 webhook endpoint URL(s), 2 alert rule webhook URL(s) changed',
          );

          const secrets = await db.selectFrom('webhookEndpoints').select(['secret', 'url']).execute();
          const configs = await db.selectFrom('alertRules').select('channelConfig').where('channel', '=', 'chat').execute();
          for (const { secret, url } of secrets) expect([sealedKeyId(secret), sealedKeyId(url)]).toEqual(['key-new', 'key-new']);
          for (const { channelConfig } of configs) expect(sealedKeyId(String(channelConfig.webhookUrl))).toBe('key-new');
          expect(JSON.stringify([secrets, configs])).not.toContain('whsec_');
          expect(JSON.stringify([secrets, configs])).not.toContain('/chat/');
          expect(JSON.stringify(secrets)).not.toContain(receiver.url);

          // the old key can go: the newest alone opens every secret, and deliveries are signed and posted as before
          const config = loadConfig({ ...integrationEnv(), DATABASE_URL: databaseUrl, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
          const delivery = webhookDeliveryDeps(db, config.webhooks, [NEW]);
          for (const [{ id }, path, secret] of [
            [legacyEndpoint, '/legacy', legacySecret],
            [oldEndpoint, '/old', oldSecret],
          ] as const) {
            expect(await deliverTestEvent(delivery, id)).toEqual({ outcome: 'delivered', status: 200 });
            const request = receiver.received.find((received) => received.path === path)!;
            expect(new Webhook(secret).verify(request.body, request.headers as Record<string, string>)).toMatchObject({ type: 'webhook.test' });
          }
          await postAlerts(db, [legacyRule.id, oldRule.id], [NEW]);
          expect(receiver.received.filter((received) => received.path.startsWith('/chat/')).map((received) => received.path)).toEqual([
            '/chat/legacy',
            '/chat/old',
          ]);

          const second = await runEntry(CLI, env, { args: ['secrets', 'reseal'] });
          expect(second.code, second.output).toBe(0);
          expect(second.output).toContain('0 webhook endpoint secret(s), 0 webhook endpoint URL(s), 0 alert rule webhook URL(s) changed');

          const withoutKeys = await runEntry(CLI, { ...env, ENCRYPTION_KEYS: undefined }, { args: ['secrets', 'reseal'] });
          expect(withoutKeys.code).toBe(1);
          expect(withoutKeys.output).toContain('ENCRYPTION_KEYS is not set');
        } finally {
          await db.destroy();
        }
      });
    } finally {
      await receiver.close();
    }
  }, 60_000);
});

/** Each rule's alert, delivered as the worker delivers it, under `keys`. */
async function postAlerts(db: Db, ruleIds: string[], keys: EncryptionKey[]): Promise<void> {
  const alerts = { outbound: { timeoutMs: 5_000, allowPrivateTargets: true }, mailer: () => Promise.reject(new Error('not the email channel')), keys };
  for (const id of ruleIds) {
    const rule = await db.selectFrom('alertRules').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    await deliverAlert(alerts, { rule, currentValue: 0.2, sample: 100, triggeredAt: new Date() });
  }
}
