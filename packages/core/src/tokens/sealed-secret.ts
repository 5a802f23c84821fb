import type { EncryptionKey } from '../config/encryption-keys';
import { openBytes, sealBytes, type SealPurpose } from './sealed-bytes';

/** ENCRYPTION_KEYS as the code paths that keep secrets receive it: undefined when unset (development). */
export type SecretKeys = readonly EncryptionKey[] | undefined;

const PREFIX = 'sealed:v1:';
// the key id's alphabet is ENCRYPTION_KEYS' (config/encryption-keys.ts); base64url has no ':'
const SEALED = /^sealed:v1:([A-Za-z0-9._-]{1,64}):([A-Za-z0-9_-]+)$/;
const text = new TextEncoder();
const read = new TextDecoder();

/**
 * A secret as a text column keeps it: `sealed:v1:<key id>:<base64url(iv || ciphertext || tag)>`
 * under the newest key (docs/security.md, "What is kept secret, and where"). Without keys
 * (development without ENCRYPTION_KEYS; production refuses to start so) it is kept as it is.
 */
export function sealSecret(keys: SecretKeys, value: string, purpose: SealPurpose): string {
  if (keys === undefined || keys.length === 0) return value;
  const { keyId, data } = sealBytes(keys, text.encode(value), purpose);
  return `${PREFIX}${keyId}:${Buffer.from(data).toString('base64url')}`;
}

/**
 * The secret a column keeps. A value without the prefix was written before secrets were sealed
 * and is the secret itself, so an installation upgraded with rows in clear keeps working until
 * `waymark secrets reseal` seals them.
 */
export function openSecret(keys: SecretKeys, stored: string, purpose: SealPurpose): string {
  if (!stored.startsWith(PREFIX)) return stored;
  const match = SEALED.exec(stored);
  if (match === null) throw new Error('a stored secret starts with sealed:v1: but is not in the sealed form');
  const [, keyId, data] = match as unknown as [string, string, string];
  return read.decode(openBytes(keys, keyId, new Uint8Array(Buffer.from(data, 'base64url')), purpose));
}

/** The key a stored secret is sealed under; undefined for one kept in clear. */
export function sealedKeyId(stored: string): string | undefined {
  return SEALED.exec(stored)?.[1];
}

/**
 * The stored value `waymark secrets reseal` writes in place of `stored`: the same secret under
 * the newest key, or undefined when it already is (so running it twice changes nothing).
 */
export function resealSecret(keys: readonly EncryptionKey[], stored: string, purpose: SealPurpose): string | undefined {
  if (keys[0] !== undefined && sealedKeyId(stored) === keys[0].id) return undefined;
  return sealSecret(keys, openSecret(keys, stored, purpose), purpose);
}
