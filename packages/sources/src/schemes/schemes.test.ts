import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { hmacHex } from './hmac-hex';
import { standardWebhooks } from './standard-webhooks';
import { timestampedHmac } from './timestamped-hmac';

const body = (text: string) => Buffer.from(text);

describe('standard-webhooks', () => {
  // the worked example of the Standard Webhooks specification (also Svix's documentation)
  const vector = {
    secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
    timestamp: 1614265330,
    payload: '{"test": 2432232314}',
    signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
  };
  const headers = (signature = vector.signature, prefix = 'webhook') => ({
    [`${prefix}-id`]: vector.id,
    [`${prefix}-timestamp`]: String(vector.timestamp),
    [`${prefix}-signature`]: signature,
  });
  const verifier = standardWebhooks.prepare(vector.secret);

  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(vector.timestamp * 1000 + 60_000);
  });
  afterEach(() => vi.useRealTimers());

  it('accepts the specification vector, with webhook-* or svix-* headers', () => {
    expect(verifier.verify(body(vector.payload), headers())).toEqual({ ok: true });
    expect(verifier.verify(body(vector.payload), headers(vector.signature, 'svix'))).toEqual({ ok: true });
  });

  it('accepts a v1,whsec_ secret (as Supabase shows it)', () => {
    expect(standardWebhooks.prepare(`v1,${vector.secret}`).verify(body(vector.payload), headers())).toEqual({ ok: true });
  });

  it('accepts any of several space-separated signatures (rotation)', () => {
    expect(verifier.verify(body(vector.payload), headers(`v1,Zm9yZ2VkLXNpZ25hdHVyZQ== ${vector.signature}`))).toEqual({ ok: true });
  });

  it('refuses a tampered body, a wrong secret, a missing header and a stale or future timestamp', () => {
    expect(verifier.verify(body('{"test": 2432232315}'), headers())).toMatchObject({ ok: false, reason: 'No matching signature found' });
    expect(standardWebhooks.prepare('whsec_' + Buffer.from('another secret').toString('base64')).verify(body(vector.payload), headers())).toMatchObject({
      ok: false,
    });
    expect(verifier.verify(body(vector.payload), { 'webhook-id': vector.id, 'webhook-timestamp': String(vector.timestamp) })).toMatchObject({ ok: false });
    vi.setSystemTime((vector.timestamp + 301) * 1000);
    expect(verifier.verify(body(vector.payload), headers())).toMatchObject({ ok: false, reason: 'Message timestamp too old' });
    vi.setSystemTime((vector.timestamp - 301) * 1000);
    expect(verifier.verify(body(vector.payload), headers())).toMatchObject({ ok: false, reason: 'Message timestamp too new' });
  });

  it('stops at start-up on a secret that is not base64', () => {
    expect(() => standardWebhooks.prepare('whsec_not base64!')).toThrow();
  });
});

describe('timestamped t=…,v1=… (Stripe)', () => {
  // computed independently: printf '1614265330.<payload>' | openssl dgst -sha256 -hmac whsec_test_secret
  const secret = 'whsec_test_secret';
  const payload = '{"id":"evt_test_webhook","object":"event"}';
  const v1 = '3c5817089d739023dd6190f70a3757e04f7a2fd8b5dab12c2e000f51970dccff';
  const t = 1614265330;
  const verifier = timestampedHmac({ header: 'Stripe-Signature' }).prepare(secret);
  const sign = (header: string) => ({ 'stripe-signature': header });

  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(t * 1000 + 30_000);
  });
  afterEach(() => vi.useRealTimers());

  it('accepts the known vector, ignoring v0 and unknown parts', () => {
    expect(verifier.verify(body(payload), sign(`t=${t},v1=${v1}`))).toEqual({ ok: true });
    expect(verifier.verify(body(payload), sign(`t=${t},v0=abc,v1=${v1},x=y`))).toEqual({ ok: true });
  });

  it('accepts any of several v1 values (secret being rolled)', () => {
    const other = createHmac('sha256', 'whsec_old').update(`${t}.${payload}`).digest('hex');
    expect(verifier.verify(body(payload), sign(`t=${t},v1=${other},v1=${v1}`))).toEqual({ ok: true });
  });

  it('refuses tampering, a wrong secret, stale and malformed headers', () => {
    expect(verifier.verify(body(payload + ' '), sign(`t=${t},v1=${v1}`))).toEqual({ ok: false, reason: 'no matching signature' });
    expect(
      timestampedHmac({ header: 'stripe-signature' })
        .prepare('whsec_other')
        .verify(body(payload), sign(`t=${t},v1=${v1}`)),
    ).toMatchObject({ ok: false });
    expect(verifier.verify(body(payload), sign(`t=${t + 1},v1=${v1}`))).toMatchObject({ ok: false });
    expect(verifier.verify(body(payload), {})).toEqual({ ok: false, reason: 'missing stripe-signature header' });
    expect(verifier.verify(body(payload), sign(`v1=${v1}`))).toMatchObject({ ok: false, reason: expect.stringContaining('timestamp') });
    expect(verifier.verify(body(payload), sign(`t=${t}`))).toMatchObject({ ok: false, reason: expect.stringContaining('no v1') });
    expect(verifier.verify(body(payload), sign(`t=${t},v1=zz`))).toMatchObject({ ok: false });
    vi.setSystemTime((t + 301) * 1000);
    expect(verifier.verify(body(payload), sign(`t=${t},v1=${v1}`))).toEqual({ ok: false, reason: 'timestamp outside the 5-minute tolerance' });
  });
});

describe('plain HMAC hex digest', () => {
  // printf '<payload>' | openssl dgst -sha1 -hmac segment-shared-secret (and -sha256)
  const payload = '{"type":"track","event":"Order Completed"}';
  const sha1 = '1a8009f81981a2590a7fd71099ce649979032ca7';
  const sha256 = 'fd91502b18143b337ddbf3f62abebab68987044d693a6030a6175f7045443d98';

  it('SHA-1 (Segment X-Signature) and SHA-256 (the default)', () => {
    expect(hmacHex({ header: 'X-Signature', algorithm: 'sha1' }).prepare('segment-shared-secret').verify(body(payload), { 'x-signature': sha1 })).toEqual({
      ok: true,
    });
    expect(hmacHex({ header: 'x-signature' }).prepare('segment-shared-secret').verify(body(payload), { 'x-signature': sha256 })).toEqual({ ok: true });
    expect(hmacHex({ header: 'x-signature' }).prepare('segment-shared-secret').verify(body(payload), { 'x-signature': sha256.toUpperCase() })).toEqual({
      ok: true,
    });
  });

  it('a prefix such as sha256= (GitHub style)', () => {
    const scheme = hmacHex({ header: 'x-hub-signature-256', prefix: 'sha256=' }).prepare('segment-shared-secret');
    expect(scheme.verify(body(payload), { 'x-hub-signature-256': `sha256=${sha256}` })).toEqual({ ok: true });
    expect(scheme.verify(body(payload), { 'x-hub-signature-256': sha256 })).toMatchObject({ ok: false });
  });

  it('refuses tampering, a wrong secret, a wrong algorithm and a missing header', () => {
    const verifier = hmacHex({ header: 'x-signature', algorithm: 'sha1' }).prepare('segment-shared-secret');
    expect(verifier.verify(body(payload.replace('Order', 'Ordre')), { 'x-signature': sha1 })).toEqual({ ok: false, reason: 'no matching signature' });
    expect(hmacHex({ header: 'x-signature', algorithm: 'sha1' }).prepare('wrong').verify(body(payload), { 'x-signature': sha1 })).toMatchObject({ ok: false });
    expect(verifier.verify(body(payload), { 'x-signature': sha256 })).toMatchObject({ ok: false });
    expect(verifier.verify(body(payload), {})).toEqual({ ok: false, reason: 'missing x-signature header' });
  });
});
