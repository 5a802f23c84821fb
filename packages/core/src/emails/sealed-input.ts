import { hkdfSync } from 'node:crypto';
import { CompactEncrypt, compactDecrypt } from 'jose';
import type { SendEmailInput } from './send-email';

/**
 * A system email's send input as its workflow carries it (docs/security.md, "What Temporal's
 * history holds"): a compact JWE (`dir`, A256GCM) under a key derived by HKDF from AUTH_SECRET, so
 * the history, its exports and the Temporal Web UI hold neither the live reset or invitation link
 * nor the address. Only the activity that sends opens it.
 */
export type SealKey = Uint8Array;

/** The sealing key of an installation: HKDF-SHA256 of AUTH_SECRET, for this one use. */
export function systemEmailSealKey(authSecret: string): SealKey {
  return new Uint8Array(hkdfSync('sha256', authSecret, 'waymark', 'system-email-input/v1', 32));
}

export async function sealSendInput(key: SealKey, input: SendEmailInput): Promise<string> {
  return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(input))).setProtectedHeader({ alg: 'dir', enc: 'A256GCM' }).encrypt(key);
}

/** Throws when the input was sealed under another AUTH_SECRET or altered. */
export async function openSendInput(key: SealKey, sealed: string): Promise<SendEmailInput> {
  const { plaintext } = await compactDecrypt(sealed, key, { keyManagementAlgorithms: ['dir'], contentEncryptionAlgorithms: ['A256GCM'] });
  return JSON.parse(new TextDecoder().decode(plaintext)) as SendEmailInput;
}
