import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendEmail } from '@waymark/core/emails/send-email';
import { checkSendGate } from '@waymark/core/preferences/send-gate';
import { uniqueAddress } from '../../../../../test/email-emulator';
import { sesEventMessage, signedSnsMessage, TEST_SNS_CERT_PEM } from '../../../../../test/sns-signer';
import { startTestApi, type TestApi } from '../../../../../test/test-api';

const SECRET = `whsec-${randomUUID()}`;
const basic = (password: string) => `Basic ${Buffer.from(`sns:${password}`).toString('base64')}`;

describe('POST /v1/webhooks/email-provider (SES via SNS)', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ EMAIL_PROVIDER_WEBHOOK_SECRET: SECRET, EMAIL_PROVIDER_SNS_CERTIFICATE: TEST_SNS_CERT_PEM, BOUNCE_THRESHOLD: '3' });
  });
  afterAll(() => api?.close());

  /** SNS posts JSON with content-type text/plain. */
  const post = (body: unknown, authorization = basic(SECRET)) =>
    api.request('POST', '/v1/webhooks/email-provider', { body: JSON.stringify(body), headers: { 'content-type': 'text/plain; charset=UTF-8', authorization } });

  async function sent(to: string, userId?: string) {
    const result = await sendEmail(api.deps.email, { templateKey: 'welcome', to, userId, idempotencyKey: randomUUID() });
    if (result.status !== 'sent') throw new Error(result.status);
    return api.deps.db.selectFrom('emailSends').selectAll().where('id', '=', result.emailSendId).executeTakeFirstOrThrow();
  }
  const row = (id: string) => api.deps.db.selectFrom('emailSends').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const prefs = (email: string) => api.deps.db.selectFrom('emailPreferences').selectAll().where('email', '=', email).execute();

  it('answers 401 "Email service not configured" without a secret', async () => {
    const unconfigured = await startTestApi({ EMAIL_PROVIDER_SNS_CERTIFICATE: TEST_SNS_CERT_PEM });
    try {
      const response = await unconfigured.request('POST', '/v1/webhooks/email-provider', {
        body: signedSnsMessage({ Message: '{}' }),
        headers: { authorization: basic('x') },
      });
      expect(response).toMatchObject({ status: 401, body: { error: 'Email service not configured' } });
    } finally {
      await unconfigured.close();
    }
  });

  it.each([
    ['no credentials', () => signedSnsMessage({ Message: '{}' }), ''],
    ['a wrong Basic password', () => signedSnsMessage({ Message: '{}' }), basic('wrong')],
    ['a bad signature', () => ({ ...signedSnsMessage({ Message: '{}' }), Message: '{"eventType":"Bounce"}' }), undefined],
    ['a certificate URL outside amazonaws.com', () => signedSnsMessage({ Message: '{}', SigningCertURL: 'https://evil.example/cert.pem' }), undefined],
    ['a body that is not SNS', () => ({ hello: 'world' }), undefined],
    ['a body that is not JSON', () => 'not json', undefined],
  ])('answers 401 "Webhook verification failed" for %s', async (_name, body, authorization) => {
    const response = await post(body(), authorization);
    expect(response).toMatchObject({ status: 401, body: { error: 'Webhook verification failed' } });
  });

  it('accepts a SubscriptionConfirmation (200 {ok:true})', async () => {
    const message = signedSnsMessage({
      Type: 'SubscriptionConfirmation',
      Message: 'You have chosen to subscribe',
      SubscribeURL: 'https://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription&Token=t',
      Token: 't',
    });
    expect(await post(message)).toMatchObject({ status: 200, body: { ok: true } });
  });

  it('records delivery, open and click idempotently and never moves a send backwards', async () => {
    const send = await sent(uniqueAddress('deliver'));
    const delivery = signedSnsMessage({ Message: sesEventMessage('Delivery', send.providerMessageId!, send.toEmail) });
    expect(await post(delivery)).toMatchObject({ status: 200, body: { ok: true } });
    const delivered = await row(send.id);
    expect(delivered.status).toBe('delivered');
    expect(delivered.deliveredAt).toBeInstanceOf(Date);
    expect(await post(delivery)).toMatchObject({ status: 200 });
    expect((await row(send.id)).updatedAt).toEqual(delivered.updatedAt);

    await post(signedSnsMessage({ Message: sesEventMessage('Click', send.providerMessageId!, send.toEmail) }));
    await post(signedSnsMessage({ Message: sesEventMessage('Open', send.providerMessageId!, send.toEmail) }));
    const after = await row(send.id);
    expect(after.status).toBe('clicked');
    expect(after.openedAt).toBeInstanceOf(Date);
    expect(after.clickedAt).toBeInstanceOf(Date);
    expect(after.humanOpenedAt).toBeInstanceOf(Date);
    expect(after.humanClickedAt).toBeInstanceOf(Date);
  });

  it('judges SES Open / Click on the address and user agent SES reports: a machine sets only openedAt / clickedAt', async () => {
    const send = await sent(uniqueAddress('ses-machine'));
    const at = new Date().toISOString();
    const scanner = { ipAddress: '198.51.100.9', timestamp: at, userAgent: 'Mozilla/5.0 (compatible; Barracuda Sentinel (EE))' };
    await post(signedSnsMessage({ Message: sesEventMessage('Click', send.providerMessageId!, send.toEmail, { click: { ...scanner, link: 'https://x' } }) }));
    await post(
      signedSnsMessage({
        Message: sesEventMessage('Open', send.providerMessageId!, send.toEmail, { open: { ipAddress: '17.58.1.2', timestamp: at, userAgent: 'Mozilla/5.0' } }),
      }),
    );
    const after = await row(send.id);
    expect(after.openedAt).toBeInstanceOf(Date);
    expect(after.clickedAt).toBeInstanceOf(Date);
    expect(after.humanOpenedAt).toBeNull();
    expect(after.humanClickedAt).toBeNull();
  });

  it('counts hard bounces once per notification; the threshold (3) suppresses the address and the next send is skipped', async () => {
    const to = uniqueAddress('bounce');
    const userId = `u-${randomUUID()}`;
    for (let bounce = 1; bounce <= 3; bounce += 1) {
      const send = await sent(to, userId);
      const message = signedSnsMessage({ Message: sesEventMessage('Bounce', send.providerMessageId!, to) });
      expect(await post(message)).toMatchObject({ status: 200, body: { ok: true } });
      expect(await post(message)).toMatchObject({ status: 200, body: { ok: true } }); // SNS redelivery
      const [preference] = await prefs(to);
      expect(preference).toMatchObject({ bounceCount: bounce, suppressed: bounce >= 3, userId });
      expect(preference?.lastBounceAt).toBeInstanceOf(Date);
      expect((await row(send.id)).status).toBe('bounced');
    }
    const [suppressed] = await prefs(to);
    expect(suppressed?.suppressedAt).toBeInstanceOf(Date);
    expect(await checkSendGate(api.deps.db, to, 'journey')).toEqual({ allowed: false, reason: 'suppressed' });
    expect(await sendEmail(api.deps.email, { templateKey: 'welcome', to, userId, idempotencyKey: randomUUID() })).toEqual({
      status: 'skipped',
      reason: 'suppressed',
    });
  });

  it('does not count soft (transient) bounces', async () => {
    const send = await sent(uniqueAddress('soft'));
    const transient = sesEventMessage('Bounce', send.providerMessageId!, send.toEmail, {
      bounce: { bounceType: 'Transient', bounceSubType: 'MailboxFull', bouncedRecipients: [{ emailAddress: send.toEmail }] },
    });
    expect(await post(signedSnsMessage({ Message: transient }))).toMatchObject({ status: 200 });
    expect(await prefs(send.toEmail)).toHaveLength(0);
    expect((await row(send.id)).status).toBe('sent');
  });

  it('a bounce or complaint of a known send is recorded for the address it was sent to, not the final recipient of its DSN', async () => {
    // an address that forwards: SES reports the Final-Recipient of the DSN, an address never mailed
    const bounced = await sent(uniqueAddress('forwarding'));
    const forwardedTo = uniqueAddress('forwarded');
    const bounce = sesEventMessage('Bounce', bounced.providerMessageId!, bounced.toEmail, {
      bounce: { bounceType: 'Permanent', bounceSubType: 'General', bouncedRecipients: [{ emailAddress: forwardedTo }] },
    });
    expect(await post(signedSnsMessage({ Message: bounce }))).toMatchObject({ status: 200 });
    expect((await prefs(bounced.toEmail))[0]).toMatchObject({ bounceCount: 1 });
    expect(await prefs(forwardedTo)).toHaveLength(0);

    const complained = await sent(uniqueAddress('forwarding-complaint'));
    const complaint = sesEventMessage('Complaint', complained.providerMessageId!, complained.toEmail, {
      complaint: { complainedRecipients: [{ emailAddress: forwardedTo }] },
    });
    expect(await post(signedSnsMessage({ Message: complaint }))).toMatchObject({ status: 200 });
    expect((await prefs(complained.toEmail))[0]).toMatchObject({ suppressed: true, suppressionReason: 'complained' });
    expect(await prefs(forwardedTo)).toHaveLength(0);
  });

  it('suppresses at once on a complaint', async () => {
    const send = await sent(uniqueAddress('complaint'));
    expect(await post(signedSnsMessage({ Message: sesEventMessage('Complaint', send.providerMessageId!, send.toEmail), SignatureVersion: '1' }))).toMatchObject(
      { status: 200 },
    );
    const after = await row(send.id);
    expect(after.status).toBe('complained');
    expect(after.complainedAt).toBeInstanceOf(Date);
    expect((await prefs(send.toEmail))[0]).toMatchObject({ suppressed: true, suppressionReason: 'complained', bounceCount: 0 });
    expect(await checkSendGate(api.deps.db, send.toEmail, 'journey')).toEqual({ allowed: false, reason: 'suppressed' });
  });

  it('accepts notifications about messages it does not know (200) and ignores non-SES payloads', async () => {
    const to = uniqueAddress('unknown');
    expect(await post(signedSnsMessage({ Message: sesEventMessage('Bounce', `unknown-${randomUUID()}`, to) }))).toMatchObject({ status: 200 });
    expect((await prefs(to))[0]).toMatchObject({ bounceCount: 1, userId: null });
    expect(await post(signedSnsMessage({ Message: 'plain text, not SES' }))).toMatchObject({ status: 200, body: { ok: true } });
  });
});

describe('POST /v1/webhooks/email-provider: its own budget (bounces and complaints always arrive)', () => {
  it('1,000 signed notifications from one address in a minute: all 200, all recorded, whatever the anonymous budget', async () => {
    const api = await startTestApi({ EMAIL_PROVIDER_WEBHOOK_SECRET: SECRET, EMAIL_PROVIDER_SNS_CERTIFICATE: TEST_SNS_CERT_PEM, RATE_LIMIT_MAX: '100' });
    try {
      const to = uniqueAddress('burst');
      const messages = Array.from({ length: 1_000 }, (_, n) =>
        signedSnsMessage({ Message: sesEventMessage(n % 2 === 0 ? 'Delivery' : 'Bounce', `burst-${randomUUID()}`, to) }),
      );
      const statuses: number[] = [];
      for (let at = 0; at < messages.length; at += 50) {
        const answers = await Promise.all(
          messages.slice(at, at + 50).map((message) =>
            api.request('POST', '/v1/webhooks/email-provider', {
              body: JSON.stringify(message),
              headers: { 'content-type': 'text/plain; charset=UTF-8', authorization: basic(SECRET) },
            }),
          ),
        );
        statuses.push(...answers.map((answer) => answer.status));
      }
      expect(countStatuses(statuses)).toEqual({ 200: 1_000 });
      const recorded = await api.deps.db
        .selectFrom('emailProviderNotifications')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where(
          'messageId',
          'in',
          messages.map((message) => message.MessageId),
        )
        .executeTakeFirstOrThrow();
      expect(Number(recorded.n)).toBe(1_000);
      expect((await api.deps.db.selectFrom('emailPreferences').select('bounceCount').where('email', '=', to).executeTakeFirst())?.bounceCount).toBe(500);
    } finally {
      await api.close();
    }
  }, 300_000);

  it('past its own budget answers 503 with Retry-After (SNS retries a 5xx, and drops a 4xx), and spends nothing on unauthenticated posts', async () => {
    const api = await startTestApi({
      EMAIL_PROVIDER_WEBHOOK_SECRET: SECRET,
      EMAIL_PROVIDER_SNS_CERTIFICATE: TEST_SNS_CERT_PEM,
      EMAIL_PROVIDER_WEBHOOK_RATE_LIMIT_MAX: '3',
    });
    try {
      const post = (body: unknown, authorization = basic(SECRET)) =>
        api.request('POST', '/v1/webhooks/email-provider', { body: JSON.stringify(body), headers: { 'content-type': 'text/plain', authorization } });
      const topic = `arn:aws:sns:us-east-1:123456789012:budget-${randomUUID().slice(0, 8)}`;
      const message = () => signedSnsMessage({ Message: sesEventMessage('Delivery', `budget-${randomUUID()}`, 'x@waymark-test.example'), TopicArn: topic });
      // refused before the budget: they do not use it up
      for (let n = 0; n < 5; n += 1) expect((await post(message(), basic('wrong'))).status).toBe(401);
      const answers = [];
      for (let n = 0; n < 4; n += 1) answers.push(await post(message()));
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 503]);
      expect(answers[3]).toMatchObject({ body: { error: expect.any(String) } });
      expect(Number(answers[3]!.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await api.close();
    }
  });
});

function countStatuses(statuses: number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}
