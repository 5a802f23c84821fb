import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailsTo, uniqueAddress } from '../../../../../test/email-emulator';
import { issueApiKey, startTestApi, type TestApi } from '../../../../../test/test-api';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

/** Issue 34, "Data plane sends": a key sends the product's templates under their own categories, nothing more. */
describe('data plane sends (security)', () => {
  let api: TestApi;
  let ingestKey: string;
  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY });
    ingestKey = await issueApiKey(api, LEGACY, `security-ingest-${randomUUID().slice(0, 8)}`, ['ingest']);
  });
  afterAll(() => api?.close());

  const resetData = { resetUrl: 'https://attacker.example/studio/reset-password?token=phish', expiresInMinutes: 15 };

  it("POST /v1/emails with the service's own auth-password-reset template is a 400 naming it, and nothing is sent", async () => {
    const to = uniqueAddress('sys');
    for (const templateKey of ['auth-password-reset', 'auth-invitation']) {
      const answer = await api.request('POST', '/v1/emails', { token: ingestKey, body: { templateKey, to, data: resetData } });
      expect(answer.status, answer.text).toBe(400);
      expect(answer.body.error).toContain(templateKey);
    }
    expect(await emailsTo(to)).toHaveLength(0);
  });

  it('broadcasts and test sends refuse the auth templates too', async () => {
    const broadcast = await api.request('POST', '/v1/admin/broadcasts', {
      token: LEGACY,
      body: {
        name: `Phish ${randomUUID().slice(0, 6)}`,
        templateKey: 'auth-password-reset',
        category: 'newsletter',
        audience: { listKey: 'anyone' },
        data: {},
      },
    });
    expect(broadcast.status, broadcast.text).toBe(400);
    expect(broadcast.body.error).toContain('auth-password-reset');
    const to = uniqueAddress('sys-test');
    const test = await api.request('POST', '/v1/admin/templates/auth-invitation/send-test', { token: LEGACY, body: { to, data: {} } });
    expect(test.status, test.text).toBe(400);
    expect(test.body.error).toContain('auth-invitation');
    expect(await emailsTo(to)).toHaveLength(0);
  });

  it("a required category the template does not declare is a 400 naming the category; the template's own is fine", async () => {
    const to = uniqueAddress('cat');
    const misuse = await api.request('POST', '/v1/emails', {
      token: ingestKey,
      body: { templateKey: 'reengage-we-miss-you', to, category: 'transactional', data: { productName: 'Atlas' } },
    });
    expect(misuse.status, misuse.text).toBe(400);
    expect(misuse.body.error).toContain("'transactional'");
    const own = await api.request('POST', '/v1/emails', {
      token: ingestKey,
      body: { templateKey: 'order-receipt', to, category: 'transactional', data: { orderId: 'A-1', items: [{ name: 'Seat', quantity: 1, price: 5 }] } },
    });
    expect(own.status, own.text).toBe(202);
  });
});
