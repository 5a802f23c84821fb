import { createHmac, createSecretKey, hkdfSync } from 'node:crypto';
import { errors, jwtVerify } from 'jose';
import { z } from 'zod';

/**
 * Signed tokens for the public unsubscribe and preference pages. HS256 with a key
 * derived from AUTH_SECRET by HKDF, so a leaked email token never reveals the session secret and
 * the two uses cannot be confused. Old emails keep working for TOKEN_LIFETIME_SECONDS (docs/email.md).
 */
export const TOKEN_LIFETIME_SECONDS = 365 * 24 * 3600;
const AUDIENCE = 'waymark:email-preferences';
const ISSUER = 'waymark';

const base64url = (json: string) => Buffer.from(json, 'utf8').toString('base64url');
const HEADER = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));

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

export function createEmailTokenSigner(authSecret: string): EmailTokenSigner {
  const raw = deriveEmailTokenKey(authSecret);
  // verify: imported once, given raw bytes, jose imports them into a WebCrypto key on every call
  const key = crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
  const signingKey = createSecretKey(raw);
  return {
    /**
     * The compact JWT jose's SignJWT makes (the same header, claims in the same order, HS256),
     * signed with node:crypto's HMAC in the calling thread: a WebCrypto sign is a job on libuv's
     * thread pool and a promise round trip, and every send signs two (bench/HISTORY.md, "Worker
     * CPU per journey email"). `unsubscribe-token.test.ts` holds it equal to jose's output.
     */
    async sign(payload) {
      const claims = emailTokenPayload.parse(payload);
      const iat = Math.floor(Date.now() / 1000);
      const body = base64url(JSON.stringify({ ...claims, iss: ISSUER, aud: AUDIENCE, iat, exp: iat + TOKEN_LIFETIME_SECONDS }));
      const signed = `${HEADER}.${body}`;
      return `${signed}.${createHmac('sha256', signingKey).update(signed).digest('base64url')}`;
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
