/**
 * One key of ENCRYPTION_KEYS (docs/security.md, "What is kept secret, and where"): an id
 * that travels with each payload it seals, so a payload sealed before a rotation still names the
 * key that opens it.
 */
export interface EncryptionKey {
  id: string;
  /** 32 bytes: AES-256-GCM */
  key: Uint8Array;
}

const ENTRY = /^([A-Za-z0-9._-]{1,64}):([0-9a-fA-F]{64})$/;

/** What a malformed setting is answered with, naming the form it wants. */
export const ENCRYPTION_KEYS_FORM = 'must be <id>:<64 hex characters> entries separated by commas (a key: openssl rand -hex 32)';

/**
 * `id:hex,id:hex…`, newest first: the first key seals, every key opens. Unset or empty: undefined.
 * Errors name the entry's position, never its value (it is a key).
 */
export function parseEncryptionKeys(value: string | undefined): { ok: true; value: EncryptionKey[] | undefined } | { ok: false; error: string } {
  if (value === undefined || value.trim() === '') return { ok: true, value: undefined };
  const keys: EncryptionKey[] = [];
  const entries = value.split(',').map((entry) => entry.trim());
  for (const [index, entry] of entries.entries()) {
    const match = ENTRY.exec(entry);
    if (match === null) return { ok: false, error: `${ENCRYPTION_KEYS_FORM}; entry ${index + 1} is not` };
    const [, id, hex] = match as unknown as [string, string, string];
    if (keys.some((key) => key.id === id)) return { ok: false, error: `names the key id "${id}" twice` };
    keys.push({ id, key: new Uint8Array(Buffer.from(hex, 'hex')) });
  }
  return { ok: true, value: keys };
}
