import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookReceiver, type WebhookReceiver } from '../../../../test/webhook-receiver';
import { OutboundRefusedError, postJsonBody } from './outbound-http';

let receiver: WebhookReceiver;
let port: string;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
  port = new URL(receiver.url).port;
});
afterAll(() => receiver?.close());

/**
 * SSRF: every outbound call to an operator-given URL (outbound webhook endpoints,
 * deliver-webhook.ts; alert webhooks) goes through postJsonBody. An IPv6 literal that carries a
 * loopback IPv4 address, however spelled, is refused before any connection, like 127.0.0.1.
 */
describe('security: outbound webhooks refuse special-purpose IPv6 spellings of internal addresses', () => {
  it.each([
    ['IPv4-mapped', '[::ffff:127.0.0.1]'],
    ['NAT64 (64:ff9b::/96)', '[64:ff9b::7f00:1]'],
    ['NAT64 local-use (64:ff9b:1::/48)', '[64:ff9b:1::7f00:1]'],
    ['IPv4-compatible (::/96)', '[::127.0.0.1]'],
    ['6to4 (2002::/16)', '[2002:7f00:1::1]'],
    ['Teredo (2001::/32)', '[2001:0:4136:e378:8000:63bf:80ff:fffe]'],
  ])('refuses a %s target %s', async (_kind, host) => {
    const path = `/ssrf-${Math.random().toString(36).slice(2)}`;
    await expect(postJsonBody(`http://${host}:${port}${path}`, '{}', {}, { timeoutMs: 2_000, allowPrivateTargets: false })).rejects.toBeInstanceOf(
      OutboundRefusedError,
    );
    expect(receiver.received.filter((request) => request.path === path)).toHaveLength(0);
  });
});

/**
 * A connection kept alive by a call that may reach private targets (ALERT_ALLOW_PRIVATE_TARGETS)
 * is never reused by one that may not (WEBHOOK_ALLOW_PRIVATE_TARGETS off): the reused socket would
 * skip the address check, which runs only when a connection is made.
 */
describe('security: a connection opened for a private-target call is not reused by a guarded one', () => {
  it('refuses the guarded call to the same host and port after an allowed one', async () => {
    const target = `http://localhost:${port}/pooled-${Math.random().toString(36).slice(2)}`;
    expect((await postJsonBody(target, '{}', {}, { timeoutMs: 2_000, allowPrivateTargets: true })).status).toBe(200);
    await expect(postJsonBody(target, '{}', {}, { timeoutMs: 2_000, allowPrivateTargets: false })).rejects.toBeInstanceOf(OutboundRefusedError);
    expect(receiver.received.filter((request) => request.path === new URL(target).pathname)).toHaveLength(1);
  });
});

/**
 * WEBHOOK_ALLOW_PRIVATE_TARGETS / ALERT_ALLOW_PRIVATE_TARGETS open your own network to receivers,
 * not the instance metadata service: a full-admin key's endpoint at 169.254.169.254 would otherwise
 * be posted to, and the first KiB of its answer kept on the delivery for the key to read.
 */
describe('security: private targets allowed, the metadata service is still refused', () => {
  it.each(['169.254.169.254', '[fd00:ec2::254]', '100.100.100.200', '[::ffff:169.254.169.254]'])('refuses %s before any connection', async (host) => {
    await expect(
      postJsonBody(
        `http://${host}/latest/meta-data/iam/security-credentials/`,
        '{}',
        {},
        { timeoutMs: 2_000, connectTimeoutMs: 500, allowPrivateTargets: true },
      ),
    ).rejects.toBeInstanceOf(OutboundRefusedError);
  });

  it('still reaches a receiver on the loopback address', async () => {
    const path = `/private-${Math.random().toString(36).slice(2)}`;
    expect((await postJsonBody(`http://127.0.0.1:${port}${path}`, '{}', {}, { timeoutMs: 2_000, allowPrivateTargets: true })).status).toBe(200);
    expect(receiver.received.filter((request) => request.path === path)).toHaveLength(1);
  });
});
