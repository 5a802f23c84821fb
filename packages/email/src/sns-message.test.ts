import { describe, expect, it, vi } from 'vitest';
import { signedSnsMessage, TEST_SNS_CERT_PEM } from '../../../test/sns-signer';
import { createSnsCertificateSource, isSnsSigningCertUrl, verifySnsMessage } from './sns-message';

const pinned = createSnsCertificateSource({ pinnedCertificatePem: TEST_SNS_CERT_PEM });

describe('SNS signature verification', () => {
  it.each(['1', '2'] as const)('accepts a Notification signed with SignatureVersion %s', async (version) => {
    const message = signedSnsMessage({ Message: '{"eventType":"Delivery"}', Subject: 'Amazon SES Email Event Notification', SignatureVersion: version });
    expect(await verifySnsMessage(message, pinned)).toMatchObject({ ok: true, message: { MessageId: message.MessageId } });
    expect(await verifySnsMessage(JSON.stringify(message), pinned)).toMatchObject({ ok: true });
  });

  it('accepts a SubscriptionConfirmation (SubscribeURL and Token are signed)', async () => {
    const message = signedSnsMessage({
      Type: 'SubscriptionConfirmation',
      Message: 'confirm',
      SubscribeURL: 'https://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription',
      Token: 'tok',
    });
    expect(await verifySnsMessage(message, pinned)).toMatchObject({ ok: true });
    expect(await verifySnsMessage({ ...message, SubscribeURL: 'https://sns.us-east-1.amazonaws.com/?Action=Evil' }, pinned)).toMatchObject({
      ok: false,
      reason: 'signature mismatch',
    });
  });

  it.each([
    ['a changed Message', { Message: '{"eventType":"Bounce"}' }],
    ['a changed MessageId', { MessageId: 'other' }],
    ['an added Subject', { Subject: 'injected' }],
    ['a changed Timestamp', { Timestamp: '2001-01-01T00:00:00.000Z' }],
    ['a downgraded SignatureVersion', { SignatureVersion: '1' as const }],
    ['a garbage signature', { Signature: 'AAAA' }],
  ])('rejects %s', async (_name, change) => {
    const message = signedSnsMessage({ Message: '{"eventType":"Delivery"}' });
    expect(await verifySnsMessage({ ...message, ...change }, pinned)).toMatchObject({ ok: false });
  });

  it.each([
    'http://sns.us-east-1.amazonaws.com/cert.pem',
    'https://sns.us-east-1.amazonaws.com.evil.example/cert.pem',
    'https://evil.example/sns.amazonaws.com/cert.pem',
    'https://user:pass@sns.us-east-1.amazonaws.com/cert.pem',
    'https://sns.us-east-1.amazonaws.com:8443/cert.pem',
    'https://s3.amazonaws.com/bucket/cert.pem',
    'https://bucket.s3.us-east-1.amazonaws.com/cert.pem',
    'https://sns.us-east-1.amazonaws.com/cert.txt',
    'not a url',
  ])('refuses the certificate URL %s without fetching it', async (url) => {
    const fetchSpy = vi.fn<typeof fetch>();
    const source = createSnsCertificateSource({ fetch: fetchSpy });
    const message = signedSnsMessage({ Message: 'x', SigningCertURL: url });
    expect(await verifySnsMessage(message, source)).toMatchObject({ ok: false });
    expect(fetchSpy).not.toHaveBeenCalled();
    expect(isSnsSigningCertUrl(url)).toBe(false);
  });

  it('downloads a certificate once per URL and caches it; a failed download is not cached', async () => {
    let calls = 0;
    const fetchStub = vi.fn<typeof fetch>(async () => {
      calls += 1;
      return calls === 1 ? new Response('oops', { status: 503 }) : new Response(TEST_SNS_CERT_PEM, { status: 200 });
    });
    const source = createSnsCertificateSource({ fetch: fetchStub });
    const message = signedSnsMessage({ Message: 'x' });
    expect(await verifySnsMessage(message, source)).toMatchObject({ ok: false, unavailable: true });
    expect(await verifySnsMessage(message, source)).toMatchObject({ ok: true });
    expect(await verifySnsMessage(signedSnsMessage({ Message: 'y' }), source)).toMatchObject({ ok: true });
    expect(fetchStub).toHaveBeenCalledTimes(2);
  });

  it('a download with no answer is unavailable (SNS should retry); a certificate its host does not have (4xx) is a refusal', async () => {
    const message = signedSnsMessage({ Message: 'x' });
    const noAnswer = createSnsCertificateSource({ fetch: async () => Promise.reject(new TypeError('fetch failed')) });
    expect(await verifySnsMessage(message, noAnswer)).toMatchObject({ ok: false, unavailable: true });
    const missing = createSnsCertificateSource({ fetch: async () => new Response('no such key', { status: 404 }) });
    const refused = await verifySnsMessage(message, missing);
    expect(refused).toMatchObject({ ok: false, reason: expect.stringContaining('HTTP 404') });
    expect(refused).not.toHaveProperty('unavailable');
  });

  it.each([['not json'], [42], [null], [{ Type: 'Notification' }], [{}]])('rejects a body that is not an SNS message: %o', async (body) => {
    expect(await verifySnsMessage(body, pinned)).toMatchObject({ ok: false });
  });
});
