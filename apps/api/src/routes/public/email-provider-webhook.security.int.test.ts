import { randomUUID } from 'node:crypto';
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
