import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { createEmailTokenSigner, deriveEmailTokenKey } from './unsubscribe-token';

const SECRET = 'test-auth-secret-at-least-32-characters-long';

describe('email preference tokens', () => {
  const signer = createEmailTokenSigner(SECRET);

  it.each([
    { externalId: 'user-1', email: 'a@example.com', action: 'unsubscribe' as const },
    { externalId: 'user-1', email: 'a@example.com', action: 'unsubscribe' as const, category: 'journey' },
    { externalId: '', email: 'only-address@example.com', action: 'resubscribe' as const, category: 'journey' },
  ])('round-trips %o', async (payload) => {
    expect(await signer.verify(await signer.sign(payload))).toEqual(payload);
  });

  it('rejects a tampered payload, a tampered signature and garbage', async () => {
    const token = await signer.sign({ externalId: 'user-1', email: 'a@example.com', action: 'unsubscribe' });
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), email: 'victim@example.com' })).toString(
      'base64url',
    );
    expect(await signer.verify(`${header}.${forged}.${signature}`)).toBeUndefined();
    // the first character: all six of its bits are the signature's (the last one's low bits are padding a
    // decoder may ignore, and a signature already ending in the replacement stays the same)
    const tampered = `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`;
    expect(await signer.verify(`${header}.${payload}.${tampered}`)).toBeUndefined();
    expect(await signer.verify('not-a-token')).toBeUndefined();
    expect(await signer.verify('')).toBeUndefined();
  });

  it('rejects a token signed with another secret, with the raw AUTH_SECRET, or with alg none', async () => {
    const other = createEmailTokenSigner('another-secret-that-is-long-enough');
    expect(await signer.verify(await other.sign({ externalId: 'u', email: 'a@example.com', action: 'unsubscribe' }))).toBeUndefined();
    const rawKey = await new SignJWT({ externalId: 'u', email: 'a@example.com', action: 'unsubscribe' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('waymark')
      .setAudience('waymark:email-preferences')
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(SECRET));
    expect(await signer.verify(rawKey)).toBeUndefined();
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('{"externalId":"u","email":"a@example.com","action":"unsubscribe"}').toString('base64url')}.`;
    expect(await signer.verify(none)).toBeUndefined();
  });

  it('rejects an expired token and one with an unknown action', async () => {
    const expired = await new SignJWT({ externalId: 'u', email: 'a@example.com', action: 'unsubscribe' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('waymark')
      .setAudience('waymark:email-preferences')
      .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
      .sign(deriveEmailTokenKey(SECRET));
    expect(await signer.verify(expired)).toBeUndefined();
    const badAction = await new SignJWT({ externalId: 'u', email: 'a@example.com', action: 'delete-account' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('waymark')
      .setAudience('waymark:email-preferences')
      .setExpirationTime('1h')
      .sign(deriveEmailTokenKey(SECRET));
    expect(await signer.verify(badAction)).toBeUndefined();
  });

  it('expires after the configured lifetime (one year by default)', async () => {
    const token = await signer.sign({ externalId: 'u', email: 'a@example.com', action: 'unsubscribe' });
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { iat: number; exp: number };
    expect(claims.exp - claims.iat).toBe(365 * 24 * 3600);
  });
});
