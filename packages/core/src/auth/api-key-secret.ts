import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Recognisable in logs and secret scanners; the rest is 32 random bytes (256 bits). */
export const API_KEY_PREFIX = 'wm_';
export const KEY_PREFIX_LENGTH = 8;

export interface GeneratedApiKey {
  key: string;
  keyPrefix: string;
  keyHash: string;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function generateApiKey(): GeneratedApiKey {
  const key = `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  return { key, keyPrefix: key.slice(0, KEY_PREFIX_LENGTH), keyHash: hashApiKey(key) };
}

/** Parses `Authorization: Bearer <token>`; undefined when absent or malformed. */
export function readBearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer[ \t]+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/** The password of an HTTP Basic `Authorization` header; undefined when absent or malformed. */
export function readBasicPassword(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (match?.[1] === undefined) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : decoded.slice(colon + 1);
}

/** Constant-time comparison of two secrets; hashing first means a length mismatch leaks nothing either. */
export function sameSecret(a: string, b: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(a), digest(b));
}
