import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SnsMessage } from '@waymark/email/sns-message';
import { signedSnsMessage, TEST_SNS_CERT_PEM } from '../../../../../test/sns-signer';
import { startTestApi, type TestApi } from '../../../../../test/test-api';

const SECRET = `whsec-${randomUUID()}`;
const TOPIC = 'arn:aws:sns:us-east-1:123456789012:ses-events';
const HOUR_MS = 3_600_000;

/**
 * docs/email.md, "Provider webhooks": a message is trusted only when its certificate comes from
 * SNS's own regional host, its topic is one of SES_SNS_TOPIC_ARNS and it is at most an hour old
 * (the signature covers TopicArn and Timestamp, so neither can be rewritten).
 */
describe('security: the SES notification webhook trusts only SNS, its topics and fresh messages', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({
      EMAIL_PROVIDER_WEBHOOK_SECRET: SECRET,
      EMAIL_PROVIDER_SNS_CERTIFICATE: TEST_SNS_CERT_PEM,
      SES_SNS_TOPIC_ARNS: `${TOPIC} arn:aws:sns:eu-west-1:123456789012:other`,
    });
  });
  afterAll(() => api?.close());

  const post = (message: SnsMessage) =>
    api.request('POST', '/v1/webhooks/email-provider', {
      body: JSON.stringify(message),
      headers: { 'content-type': 'text/plain; charset=UTF-8', authorization: `Basic ${Buffer.from(`sns:${SECRET}`).toString('base64')}` },
    });
  const refused = { status: 401, body: { error: 'Webhook verification failed' } };

  it.each([
    'https://s3.amazonaws.com/attacker-bucket/SimpleNotificationService-x.pem',
    'https://attacker-bucket.s3.us-east-1.amazonaws.com/SimpleNotificationService-x.pem',
    'https://attacker.execute-api.us-east-1.amazonaws.com/SimpleNotificationService-x.pem',
    'https://sns.us-east-1.amazonaws.com.attacker.example/SimpleNotificationService-x.pem',
    'https://sns.us-east-1.amazonaws.com/attacker/../../SimpleNotificationService-x.txt',
  ])('refuses a forged certificate host or path: %s', async (url) => {
    expect(await post(signedSnsMessage({ Message: '{}', TopicArn: TOPIC, SigningCertURL: url }))).toMatchObject(refused);
  });

  it('refuses a topic outside SES_SNS_TOPIC_ARNS and accepts those in it', async () => {
    expect(await post(signedSnsMessage({ Message: '{}', TopicArn: 'arn:aws:sns:us-east-1:999999999999:attacker' }))).toMatchObject(refused);
    expect(await post(signedSnsMessage({ Message: '{}', TopicArn: TOPIC }))).toMatchObject({ status: 200, body: { ok: true } });
    expect(await post(signedSnsMessage({ Message: '{}', TopicArn: 'arn:aws:sns:eu-west-1:123456789012:other' }))).toMatchObject({ status: 200 });
  });

  it('refuses a message whose Timestamp is more than an hour away (a replay)', async () => {
    const at = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();
    expect(await post(signedSnsMessage({ Message: '{}', TopicArn: TOPIC, Timestamp: at(-2 * HOUR_MS) }))).toMatchObject(refused);
    expect(await post(signedSnsMessage({ Message: '{}', TopicArn: TOPIC, Timestamp: at(2 * HOUR_MS) }))).toMatchObject(refused);
    expect(await post(signedSnsMessage({ Message: '{}', TopicArn: TOPIC, Timestamp: 'yesterday' }))).toMatchObject(refused);
    expect(await post(signedSnsMessage({ Message: '{}', TopicArn: TOPIC, Timestamp: at(-HOUR_MS / 2) }))).toMatchObject({ status: 200 });
  });
});

/**
 * SNS drops a message answered with a 4xx and retries a 5xx (docs/email.md, "Provider webhooks"):
 * a signing certificate the api could not download says nothing about the message, so it is a
 * 503 that SNS retries, not the 401 of a forgery, which would lose a Send event that settles an
 * unknown delivery, or a bounce.
 */
describe('the SES notification webhook when the signing certificate cannot be downloaded', () => {
  let api: TestApi;
  let serving = false;
  let certificates: Server;
  let prefix = '';
  beforeAll(async () => {
    certificates = createServer((_request, response) => {
      if (!serving) response.writeHead(500).end('unavailable');
      else response.writeHead(200, { 'content-type': 'application/x-pem-file' }).end(TEST_SNS_CERT_PEM);
    });
    await new Promise<void>((resolve) => certificates.listen(0, '127.0.0.1', resolve));
    prefix = `http://127.0.0.1:${(certificates.address() as AddressInfo).port}/`;
    api = await startTestApi({ EMAIL_PROVIDER_WEBHOOK_SECRET: SECRET, EMAIL_PROVIDER_SNS_DEV_CERT_URL: prefix });
  });
  afterAll(async () => {
    await api?.close();
    await new Promise((resolve) => certificates?.close(resolve));
  });

  it('answers 503 with Retry-After and records nothing; the retry, once the certificate downloads, is recorded', async () => {
    const message = signedSnsMessage({ Message: '{}', SigningCertURL: `${prefix}signing.pem` });
    const post = () =>
      api.request('POST', '/v1/webhooks/email-provider', {
        body: JSON.stringify(message),
        headers: { 'content-type': 'text/plain; charset=UTF-8', authorization: `Basic ${Buffer.from(`sns:${SECRET}`).toString('base64')}` },
      });
    const recorded = () => api.deps.db.selectFrom('emailProviderNotifications').select('messageId').where('messageId', '=', message.MessageId).execute();

    const unavailable = await post();
    expect(unavailable).toMatchObject({ status: 503, body: { error: 'Signing certificate unavailable; retry later' } });
    expect(Number(unavailable.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await recorded()).toEqual([]);

    serving = true;
    expect(await post()).toMatchObject({ status: 200, body: { ok: true } });
    expect(await recorded()).toEqual([{ messageId: message.MessageId }]);
  });
});
