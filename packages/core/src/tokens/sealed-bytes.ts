import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { EncryptionKey } from '../config/encryption-keys';
import { unavailable } from '../errors/app-error';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * What a sealed value is for, bound into its tag as associated data: a value sealed for one use
 * cannot be opened as another (an endpoint's signing secret copied into an alert rule's chat URL,
 * which the admin API shows opened, fails to open). It also names the value in errors.
 */
export type SealPurpose = 'Temporal payload' | 'webhook endpoint secret' | 'webhook endpoint URL' | 'alert chat webhook URL' | 'alert webhook URL';

/** Bytes sealed under one key of ENCRYPTION_KEYS: `data` is iv (12 bytes) || ciphertext || tag (16 bytes). */
export interface SealedBytes {
  keyId: string;
  data: Uint8Array;
}

/**
 * AES-256-GCM under the first (newest) key of `keys`. The key id travels beside the data, so
 * whatever was sealed before a rotation still names the key that opens it
 * (docs/security.md, "What is kept secret, and where").
 */
export function sealBytes(keys: readonly EncryptionKey[], plain: Uint8Array, purpose: SealPurpose): SealedBytes {
  const sealing = keys[0];
  if (sealing === undefined) throw new Error('nothing can be sealed: ENCRYPTION_KEYS holds no key');
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', sealing.key, iv);
  cipher.setAAD(Buffer.from(purpose));
  const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
  return { keyId: sealing.id, data: new Uint8Array(sealed) };
}

/**
 * The bytes `sealBytes` sealed under `keyId`; throws when the tag does not match (altered, or
 * other key bytes under that id, or sealed for another purpose).
 */
export function openBytes(keys: readonly EncryptionKey[] | undefined, keyId: string, data: Uint8Array, purpose: SealPurpose): Uint8Array {
  const what = `${/^[aeiou]/i.test(purpose) ? 'an' : 'a'} ${purpose}`;
  const key = keys?.find((candidate) => candidate.id === keyId);
  // a key taken out of the list while something sealed under it is still kept: name it, so it can be put back
  // a 503 where an API caller meets it: the installation's keys are wrong, not the request
  if (key === undefined) throw unavailable(`${what} is sealed under key "${keyId}", which ENCRYPTION_KEYS does not hold; put the key back`);
  if (data.length < IV_BYTES + TAG_BYTES) throw new Error(`${what} sealed under key "${keyId}" is too short to have been sealed`);
  const decipher = createDecipheriv('aes-256-gcm', key.key, data.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(purpose));
  decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
  return new Uint8Array(Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]));
}
