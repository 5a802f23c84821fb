import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverAlert } from '@waymark/core/alerts/alert-delivery';
import { sealSecret } from '@waymark/core/tokens/sealed-secret';
import { webhookDeliveryDeps } from '@waymark/core/webhooks/outbound/deliver-webhook';
import { openScratchDatabase, type ScratchDatabase } from '../../../../../test/scratch-database';
import { startTestApi, type TestApi } from '../../../../../test/test-api';
import { deliverTestEvent } from '../../../../../test/webhook-endpoints';
import { startWebhookReceiver, type WebhookReceiver } from '../../../../../test/webhook-receiver';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

/** docs/security.md, "What is kept secret, and where": what the API takes in clear is kept sealed, and still used. */
describe("endpoint secrets and URLs, and alert rules' chat and webhook URLs, are sealed at rest under ENCRYPTION_KEYS", () => {
  let api: TestApi;
  let receiver: WebhookReceiver;
  let scratch: ScratchDatabase;

  beforeAll(async () => {
    // a database of its own: no worker of another test file delivers these endpoints' events
    scratch = await openScratchDatabase();
    receiver = await startWebhookReceiver();
    api = await startTestApi({ ADMIN_API_KEY: LEGACY, DATABASE_URL: scratch.url, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', ALERT_ALLOW_PRIVATE_TARGETS: 'true' });
  }, 60_000);
  afterAll(async () => {
    await api?.close();
    await receiver?.close();
    await scratch?.release();
  }, 60_000);

  const storedSecret = async (id: string) =>
    (await api.deps.db.selectFrom('webhookEndpoints').select('secret').where('id', '=', id).executeTakeFirstOrThrow()).secret;
  const storedUrl = async (id: string) => (await api.deps.db.selectFrom('webhookEndpoints').select('url').where('id', '=', id).executeTakeFirstOrThrow()).url;
  const storedChannelConfig = async (id: string) =>
    (await sql<{ config: string }>`select channel_config::text as config from alert_rules where id = ${id}`.execute(api.deps.db)).rows[0]?.config;
  const verify = (secret: string, path: string) => {
    const request = receiver.received.filter((received) => received.path === path).at(-1);
    expect(request, `nothing received on ${path}`).toBeDefined();
    return new Webhook(secret).verify(request!.body, request!.headers as Record<string, string>) as { type: string };
  };

  it('keeps an endpoint secret sealed (created and rotated), shows it once in clear, and signs deliveries with it', async () => {
    const delivery = webhookDeliveryDeps(api.deps.db, api.config.webhooks, api.config.encryptionKeys);
    const created = await api.request('POST', '/v1/admin/webhook-endpoints', {
      token: LEGACY,
      body: { url: `${receiver.url}/sealed`, events: ['contact.created'] },
    });
    expect(created.status).toBe(201);
    expect(created.body.url).toBe(`${receiver.url}/sealed`);
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const stored = await storedSecret(created.body.id);
    expect(stored).not.toContain(created.body.secret);
    expect(stored).not.toContain(created.body.secret.slice('whsec_'.length));
    expect(stored).toMatch(/^sealed:v1:test-1:/);

    expect(await deliverTestEvent(delivery, created.body.id)).toEqual({ outcome: 'delivered', status: 200 });
    expect(verify(created.body.secret, '/sealed').type).toBe('webhook.test');

    const rotated = await api.request('POST', `/v1/admin/webhook-endpoints/${created.body.id}/rotate-secret`, { token: LEGACY });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    const storedAfterRotation = await storedSecret(created.body.id);
    expect(storedAfterRotation).not.toContain(rotated.body.secret);
    expect(storedAfterRotation).toMatch(/^sealed:v1:test-1:/);
    expect(await deliverTestEvent(delivery, created.body.id)).toEqual({ outcome: 'delivered', status: 200 });
    expect(verify(rotated.body.secret, '/sealed').type).toBe('webhook.test');

    // reads, lists and updates show what they showed before: never the secret, sealed or not
    const patched = await api.request('PATCH', `/v1/admin/webhook-endpoints/${created.body.id}`, { token: LEGACY, body: { description: 'sealed' } });
    const listed = await api.request('GET', '/v1/admin/webhook-endpoints', { token: LEGACY });
    const read = await api.request('GET', `/v1/admin/webhook-endpoints/${created.body.id}`, { token: LEGACY });
    for (const body of [patched.body, read.body, ...listed.body.endpoints]) {
      expect(body).not.toHaveProperty('secret');
      expect(JSON.stringify(body)).not.toContain('sealed:v1:');
    }
  });

  // chat, automation and no-code receivers take a URL whose path or query is their credential
  it("keeps an endpoint's URL sealed (created and changed), shows it in clear, and delivers to it", async () => {
    const delivery = webhookDeliveryDeps(api.deps.db, api.config.webhooks, api.config.encryptionKeys);
    const url = `${receiver.url}/hooks/catch/${randomUUID()}`;
    const created = await api.request('POST', '/v1/admin/webhook-endpoints', { token: LEGACY, body: { url, events: ['contact.created'] } });
    expect(created.status).toBe(201);
    expect(created.body.url).toBe(url);
    const stored = await storedUrl(created.body.id);
    expect(stored).not.toContain(new URL(url).pathname);
    expect(stored).toMatch(/^sealed:v1:test-1:/);
    expect(await deliverTestEvent(delivery, created.body.id)).toEqual({ outcome: 'delivered', status: 200 });
    expect(verify(created.body.secret, new URL(url).pathname).type).toBe('webhook.test');

    const moved = `${receiver.url}/hooks/catch/${randomUUID()}`;
    const patched = await api.request('PATCH', `/v1/admin/webhook-endpoints/${created.body.id}`, { token: LEGACY, body: { url: moved } });
    expect(patched).toMatchObject({ status: 200, body: { url: moved } });
    expect(await storedUrl(created.body.id)).not.toContain(new URL(moved).pathname);
    const read = await api.request('GET', `/v1/admin/webhook-endpoints/${created.body.id}`, { token: LEGACY });
    const listed = await api.request('GET', '/v1/admin/webhook-endpoints', { token: LEGACY });
    expect(read.body.url).toBe(moved);
    expect(listed.body.endpoints.find((endpoint: { id: string }) => endpoint.id === created.body.id).url).toBe(moved);
    expect(await deliverTestEvent(delivery, created.body.id)).toEqual({ outcome: 'delivered', status: 200 });
    expect(verify(created.body.secret, new URL(moved).pathname).type).toBe('webhook.test');

    // only full-admin reads or changes an endpoint's URL: a journey-admin or read key is refused, no credential is a 401
    const editorKey = (await api.request('POST', '/v1/admin/api-keys', { token: LEGACY, body: { name: 'endpoint-editor', scopes: ['journey-admin'] } })).body
      .key;
    expect((await api.request('GET', `/v1/admin/webhook-endpoints/${created.body.id}`, { token: editorKey })).status).toBe(403);
    expect(
      (await api.request('PATCH', `/v1/admin/webhook-endpoints/${created.body.id}`, { token: editorKey, body: { url: `${receiver.url}/taken` } })).status,
    ).toBe(403);
    expect((await api.request('GET', '/v1/admin/webhook-endpoints')).status).toBe(401);
    expect((await api.request('GET', `/v1/admin/webhook-endpoints/${created.body.id}`, { token: LEGACY })).body.url).toBe(moved);
  });

  it('a URL sealed under a key no longer held: the delivery waits, no attempt counted, its lastError naming the key; the API answers 503', async () => {
    const gone = { id: 'gone-2', key: new Uint8Array(Buffer.from('1c6e0b7e2a6c18d3f5e0a7b4c91e6d2f08b3a5c7e4d1f6a9b2c0e8d7f3a5b1c6', 'hex')) };
    const row = await api.deps.db
      .insertInto('webhookEndpoints')
      .values({
        url: sealSecret([gone], `${receiver.url}/hooks/gone`, 'webhook endpoint URL'),
        events: ['contact.created'],
        secret: sealSecret(api.config.encryptionKeys, 'whsec_Z29uZS1rZXktZW5kcG9pbnQtc2VjcmV0LTMyLWJ5dGVzIQ==', 'webhook endpoint secret'),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const read = await api.request('GET', `/v1/admin/webhook-endpoints/${row.id}`, { token: LEGACY });
    expect(read.status).toBe(503);
    expect(read.body.error).toBe('a webhook endpoint URL is sealed under key "gone-2", which ENCRYPTION_KEYS does not hold; put the key back');
    const delivery = webhookDeliveryDeps(api.deps.db, api.config.webhooks, api.config.encryptionKeys);
    await expect(deliverTestEvent(delivery, row.id)).rejects.toThrow('sealed under key "gone-2"');
    const waiting = await api.deps.db
      .selectFrom('webhookDeliveries')
      .select(['attempts', 'lastError', 'status'])
      .where('endpointId', '=', row.id)
      .executeTakeFirstOrThrow();
    expect(waiting).toMatchObject({
      attempts: 0,
      status: 'pending',
      lastError: expect.stringContaining('not attempted: a webhook endpoint URL is sealed under key "gone-2"'),
    });
    expect(receiver.received.filter((received) => received.path === '/hooks/gone')).toHaveLength(0);
    // a PATCH with a new URL replaces it without the key
    const patched = await api.request('PATCH', `/v1/admin/webhook-endpoints/${row.id}`, { token: LEGACY, body: { url: `${receiver.url}/hooks/back` } });
    expect(patched).toMatchObject({ status: 200, body: { url: `${receiver.url}/hooks/back` } });
    await api.deps.db.deleteFrom('webhookEndpoints').where('id', '=', row.id).execute();
  });

  // an alert webhook's posts are not signed: its URL is the credential, as a chat incoming webhook's is
  it.each([
    {
      channel: 'chat',
      field: 'webhookUrl',
      config: (url: string) => ({ webhookUrl: url, channel: '#ops' }),
      posted: { channel: '#ops', text: expect.stringContaining('bounce rate') },
    },
    {
      channel: 'webhook',
      field: 'url',
      config: (url: string) => ({ url }),
      posted: { alert: expect.objectContaining({ ruleName: 'bounce rate' }), text: expect.stringContaining('bounce rate') },
    },
  ])("keeps a $channel alert rule's URL sealed, shows it in clear as before, and posts the alert to it", async ({ channel, field, config, posted }) => {
    const url = `${receiver.url}/${channel}/T0/B0/${randomUUID()}`;
    const channelConfig = config(url);
    const created = await api.request('POST', '/v1/admin/alerts/rules', {
      token: LEGACY,
      body: { name: 'bounces', type: 'bounce_rate_exceeded', threshold: 0.05, channel, channelConfig },
    });
    expect(created.status).toBe(201);
    expect(created.body.channelConfig).toEqual(channelConfig);
    const stored = await storedChannelConfig(created.body.id);
    expect(stored).not.toContain(new URL(url).pathname);
    expect(stored).toMatch(new RegExp(`"${field}": "sealed:v1:test-1:`));

    // an update that leaves the channel alone keeps the URL; lists show it as they did
    const patched = await api.request('PATCH', `/v1/admin/alerts/rules/${created.body.id}`, { token: LEGACY, body: { name: 'bounce rate' } });
    expect(patched).toMatchObject({ status: 200, body: { name: 'bounce rate', channelConfig } });
    expect(await storedChannelConfig(created.body.id)).not.toContain(new URL(url).pathname);
    const listed = await api.request('GET', '/v1/admin/alerts/rules', { token: LEGACY });
    expect(listed.body.rules.find((rule: { id: string }) => rule.id === created.body.id).channelConfig).toEqual(channelConfig);

    const rule = await api.deps.db.selectFrom('alertRules').selectAll().where('id', '=', created.body.id).executeTakeFirstOrThrow();
    const alerts = {
      outbound: { timeoutMs: 5_000, allowPrivateTargets: true },
      mailer: () => Promise.reject(new Error('not the email channel')),
      keys: api.config.encryptionKeys,
    };
    await deliverAlert(alerts, { rule, currentValue: 0.1, sample: 100, triggeredAt: new Date() });
    const received = receiver.received.filter((request) => request.path === new URL(url).pathname);
    expect(received).toHaveLength(1);
    expect(JSON.parse(received[0]!.body)).toMatchObject(posted);
  });

  it('a chat URL sealed under a key no longer held: 503 naming the key (not a 500), and a PATCH with a new URL replaces it', async () => {
    const gone = { id: 'gone-1', key: new Uint8Array(Buffer.from('9d4f0b7e2a6c18d3f5e0a7b4c91e6d2f08b3a5c7e4d1f6a9b2c0e8d7f3a5b1c6', 'hex')) };
    const row = await api.deps.db
      .insertInto('alertRules')
      .values({
        name: 'orphaned',
        type: 'bounce_rate_exceeded',
        threshold: 0.05,
        channel: 'chat',
        channelConfig: JSON.stringify({ webhookUrl: sealSecret([gone], `${receiver.url}/chat/gone`, 'alert chat webhook URL'), channel: '#ops' }),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const listed = await api.request('GET', '/v1/admin/alerts/rules', { token: LEGACY });
    expect(listed.status).toBe(503);
    expect(listed.body.error).toBe('an alert chat webhook URL is sealed under key "gone-1", which ENCRYPTION_KEYS does not hold; put the key back');
    const webhookUrl = `${receiver.url}/chat/new`;
    const replaced = await api.request('PATCH', `/v1/admin/alerts/rules/${row.id}`, {
      token: LEGACY,
      body: { channel: 'chat', channelConfig: { webhookUrl, channel: '#ops' } },
    });
    expect(replaced).toMatchObject({ status: 200, body: { channelConfig: { webhookUrl } } });
    expect((await api.request('GET', '/v1/admin/alerts/rules', { token: LEGACY })).status).toBe(200);
  });
});
