import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { generateEndpointSecret } from './endpoint-secret';

describe('generateEndpointSecret', () => {
  it('is a whsec_ secret of 32 random bytes that standardwebhooks signs and verifies with', () => {
    const secret = generateEndpointSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(generateEndpointSecret()).not.toBe(secret);

    const body = JSON.stringify({ type: 'webhook.test', timestamp: new Date().toISOString(), data: {} });
    const at = new Date();
    const headers = {
      'webhook-id': 'evt-1',
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign('evt-1', at, body),
    };
    expect(new Webhook(secret).verify(body, headers)).toMatchObject({ type: 'webhook.test' });
    expect(() => new Webhook(generateEndpointSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(secret).verify(body.replace('test', 'tost'), headers)).toThrow();
  });
});
