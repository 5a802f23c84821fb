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

export function deriveEmailTokenKey(authSecret: string): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', authSecret, 'waymark-email-token-salt', 'waymark email preference tokens v1', 32));
}

export function createEmailTokenSigner(authSecret: string, options: { lifetime?: string } = {}): EmailTokenSigner {
  const key = deriveEmailTokenKey(authSecret);
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
        .sign(key);
    },
    async verify(token) {
      try {
        const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'], audience: AUDIENCE, issuer: ISSUER });
        const parsed = emailTokenPayload.safeParse(payload);
        return parsed.success ? parsed.data : undefined;
      } catch (error) {
        if (error instanceof errors.JOSEError) return undefined;
        throw error;
      }
    },
  };
}
