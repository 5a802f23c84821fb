import { hkdfSync } from 'node:crypto';
import { SignJWT, errors, jwtVerify } from 'jose';
import { z } from 'zod';

/**
 * Signed tokens for the public unsubscribe and preference pages. HS256 with a key
 * derived from AUTH_SECRET by HKDF, so a leaked email token never reveals the session secret and
 * the two uses cannot be confused. Old emails keep working for TOKEN_LIFETIME (docs/email.md).
 */
export const TOKEN_LIFETIME = '365d';
const AUDIENCE = 'waymark:email-preferences';
const ISSUER = 'waymark';

export const emailTokenPayload = z.object({
  externalId: z.string(),
  email: z.string().min(1),
  action: z.enum(['unsubscribe', 'resubscribe']),
  category: z.string().min(1).optional(),
});

export type EmailTokenPayload = z.infer<typeof emailTokenPayload>;
export type EmailTokenAction = EmailTokenPayload['action'];

export interface EmailTokenSigner {
  sign(payload: EmailTokenPayload): Promise<string>;
  /** Returns the payload, or undefined for a malformed, tampered, expired or foreign token. */
  verify(token: string): Promise<EmailTokenPayload | undefined>;
}

export function deriveEmailTokenKey(authSecret: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(hkdfSync('sha256', authSecret, 'waymark-email-token-salt', 'waymark email preference tokens v1', 32));
}

export function createEmailTokenSigner(authSecret: string, options: { lifetime?: string } = {}): EmailTokenSigner {
  // imported once: given raw bytes, jose imports them into a WebCrypto key on every sign and
  // verify, which was about a third of a token's CPU (two tokens per send)
  const key = crypto.subtle.importKey('raw', deriveEmailTokenKey(authSecret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
  const lifetime = options.lifetime ?? TOKEN_LIFETIME;
  return {
    async sign(payload) {
      const claims = emailTokenPayload.parse(payload);
      return new SignJWT({ ...claims })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt()
        .setExpirationTime(lifetime)
        .sign(await key);
    },
    async verify(token) {
      try {
        const { payload } = await jwtVerify(token, await key, { algorithms: ['HS256'], audience: AUDIENCE, issuer: ISSUER });
        const parsed = emailTokenPayload.safeParse(payload);
        return parsed.success ? parsed.data : undefined;
      } catch (error) {
        if (error instanceof errors.JOSEError) return undefined;
        throw error;
      }
    },
  };
}
