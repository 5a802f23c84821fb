import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSnsCertificateSource } from '@waymark/email/sns-message';
import { signedSnsMessage, TEST_SNS_CERT_PEM } from '../../../../../test/sns-signer';
import { readBasicPassword } from '../../auth/api-key-secret';
import { verifyEmailProviderWebhook } from './verify-webhook';

const certificates = createSnsCertificateSource({ pinnedCertificatePem: TEST_SNS_CERT_PEM });
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('email-provider webhook verification', () => {
  const body = signedSnsMessage({ Message: '{}' });

  it('is closed without EMAIL_PROVIDER_WEBHOOK_SECRET', async () => {
    expect(await verifyEmailProviderWebhook({ authorization: basic('sns', 's3cret'), body }, { secret: undefined, certificates })).toMatchObject({
      ok: false,
      error: 'Email service not configured',
    });
  });

  it.each([
    ['no header', undefined],
    ['a wrong password', basic('sns', 'nope')],
    ['a bearer token', 'Bearer s3cret'],
    ['malformed basic', 'Basic !!!'],
    ['no colon', `Basic ${Buffer.from('s3cret').toString('base64')}`],
  ])('fails with %s', async (_name, authorization) => {
    expect(await verifyEmailProviderWebhook({ authorization, body }, { secret: 's3cret', certificates })).toMatchObject({
      ok: false,
      error: 'Webhook verification failed',
    });
  });

  it('needs both the password and a valid SNS signature', async () => {
    expect(await verifyEmailProviderWebhook({ authorization: basic('sns', 's3cret'), body }, { secret: 's3cret', certificates })).toMatchObject({ ok: true });
    expect(
      await verifyEmailProviderWebhook(
        { authorization: basic('any-user', 's3cret'), body: { ...body, Message: '{"x":1}' } },
        { secret: 's3cret', certificates },
      ),
    ).toMatchObject({
      ok: false,
      error: 'Webhook verification failed',
    });
  });

  it('trusts a development signing certificate only under EMAIL_PROVIDER_SNS_DEV_CERT_URL (which production refuses)', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const devCertificates = createSnsCertificateSource({
      fetch: async () => new Response(publicKey.export({ type: 'spki', format: 'pem' }).toString()),
    });
    const devBody = signedSnsMessage(
      { Message: '{}', SigningCertURL: 'http://127.0.0.1:8006/sns-dev-cert-0123456789abcdef.pem' },
      { keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() },
    );
    const options = { secret: 's3cret', certificates: devCertificates };
    const authorization = basic('sns', 's3cret');
    expect(
      await verifyEmailProviderWebhook({ authorization, body: devBody }, { ...options, trust: { devCertificateUrl: 'http://127.0.0.1:8006/' } }),
    ).toMatchObject({
      ok: true,
    });
    expect(await verifyEmailProviderWebhook({ authorization, body: devBody }, options)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('amazonaws.com'),
    });
    expect(
      await verifyEmailProviderWebhook({ authorization, body: devBody }, { ...options, trust: { devCertificateUrl: 'http://127.0.0.1:9999/' } }),
    ).toMatchObject({
      ok: false,
    });
  });

  it('reads the password after the first colon (passwords may contain colons)', () => {
    expect(readBasicPassword(basic('sns', 'a:b:c'))).toBe('a:b:c');
  });
});
