import { createHash, randomBytes } from 'node:crypto';

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
