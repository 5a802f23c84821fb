import { createSign, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { snsStringToSign, type SnsMessage } from '@waymark/email/sns-message';

/** The test-only SNS signing certificate (test/fixtures/README.md). */
export const TEST_SNS_CERT_PEM = readFileSync(new URL('./fixtures/sns-test-cert.pem', import.meta.url), 'utf8');
const TEST_SNS_KEY_PEM = readFileSync(new URL('./fixtures/sns-test-key.pem', import.meta.url), 'utf8');

export const TEST_SIGNING_CERT_URL = 'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-test.pem';

/** Builds an SNS message signed the way SNS signs (SignatureVersion 1 = SHA1, 2 = SHA256). */
export function signedSnsMessage(fields: Partial<SnsMessage> & Pick<SnsMessage, 'Message'>, options: { keyPem?: string } = {}): SnsMessage {
  const message: SnsMessage = {
    Type: 'Notification',
    MessageId: randomUUID(),
    TopicArn: 'arn:aws:sns:us-east-1:123456789012:ses-events',
    Timestamp: new Date().toISOString(),
    SignatureVersion: '2',
    SigningCertURL: TEST_SIGNING_CERT_URL,
    Signature: '',
    ...fields,
  };
  const signer = createSign(message.SignatureVersion === '1' ? 'RSA-SHA1' : 'RSA-SHA256');
  signer.update(snsStringToSign(message), 'utf8');
  return { ...message, Signature: signer.sign(options.keyPem ?? TEST_SNS_KEY_PEM, 'base64') };
}

/** An SES event notification as SES publishes it to SNS. */
export function sesEventMessage(
  eventType: 'Delivery' | 'Bounce' | 'Complaint' | 'Open' | 'Click' | 'Reject',
  messageId: string,
  recipient: string,
  extra: Record<string, unknown> = {},
): string {
  const body: Record<string, unknown> = { eventType, mail: { messageId, destination: [recipient], timestamp: new Date().toISOString() } };
  if (eventType === 'Bounce')
    body.bounce = { bounceType: 'Permanent', bounceSubType: 'General', bouncedRecipients: [{ emailAddress: recipient }], timestamp: new Date().toISOString() };
  if (eventType === 'Complaint') body.complaint = { complainedRecipients: [{ emailAddress: recipient }], timestamp: new Date().toISOString() };
  if (eventType === 'Delivery') body.delivery = { timestamp: new Date().toISOString(), recipients: [recipient] };
  return JSON.stringify({ ...body, ...extra });
}
