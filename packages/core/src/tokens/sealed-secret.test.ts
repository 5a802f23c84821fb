import { describe, expect, it } from 'vitest';
import type { EncryptionKey } from '../config/encryption-keys';
import { openSecret, resealSecret, sealedKeyId, sealSecret } from './sealed-secret';

const key = (id: string, byte: number): EncryptionKey => ({ id, key: new Uint8Array(32).fill(byte) });
const NEW = key('2026-11', 7);
const OLD = key('2026-01', 9);
const W = 'webhook endpoint secret' as const;
const SECRET = 'whsec_c2VjcmV0LXNpZ25pbmcta2V5LW9mLXRoaXJ0eS10d28tYnl0ZXM=';

describe('sealSecret / openSecret', () => {
  it('seals under the newest key, in the sealed:v1 form, and opens back to the same secret', () => {
    const stored = sealSecret([NEW, OLD], SECRET, W);
    expect(stored).toMatch(/^sealed:v1:2026-11:[A-Za-z0-9_-]+$/);
    expect(stored).not.toContain(SECRET);
    expect(sealSecret([NEW], SECRET, W)).not.toBe(sealSecret([NEW], SECRET, W));
    expect(openSecret([NEW, OLD], stored, W)).toBe(SECRET);
  });

  it('after a rotation the old key still opens what it sealed, and the new key seals', () => {
    const underOld = sealSecret([OLD], SECRET, W);
    expect(openSecret([NEW, OLD], underOld, W)).toBe(SECRET);
    expect(sealedKeyId(sealSecret([NEW, OLD], SECRET, W))).toBe('2026-11');
    const resealed = resealSecret([NEW, OLD], underOld, W);
    expect(sealedKeyId(resealed!)).toBe('2026-11');
    expect(openSecret([NEW], resealed!, W)).toBe(SECRET);
    expect(resealSecret([NEW, OLD], resealed!, W)).toBeUndefined();
  });

  it('a value kept in clear before sealing (legacy) is the secret itself, and reseals under the newest key', () => {
    expect(openSecret([NEW], SECRET, W)).toBe(SECRET);
    expect(openSecret(undefined, 'https://hooks.slack.com/services/T0/B0/x', W)).toBe('https://hooks.slack.com/services/T0/B0/x');
    expect(sealedKeyId(SECRET)).toBeUndefined();
    expect(openSecret([NEW], resealSecret([NEW], SECRET, W)!, W)).toBe(SECRET);
  });

  it('without keys (development) the secret is kept as it is', () => {
    expect(sealSecret(undefined, SECRET, W)).toBe(SECRET);
    expect(sealSecret([], SECRET, W)).toBe(SECRET);
  });

  it('a secret sealed under a key the list no longer holds is refused, naming the key', () => {
    const underOld = sealSecret([OLD], SECRET, W);
    expect(() => openSecret([NEW], underOld, W)).toThrow('a webhook endpoint secret is sealed under key "2026-01", which ENCRYPTION_KEYS does not hold');
    expect(() => openSecret(undefined, underOld, W)).toThrow('sealed under key "2026-01"');
  });

  it('an altered secret, or other key bytes under the same id, is refused', () => {
    const stored = sealSecret([NEW], SECRET, W);
    const data = Buffer.from(stored.slice(stored.lastIndexOf(':') + 1), 'base64url');
    data[20] = (data[20] ?? 0) ^ 1;
    expect(() => openSecret([NEW], `sealed:v1:2026-11:${data.toString('base64url')}`, W)).toThrow();
    expect(() => openSecret([key('2026-11', 8)], stored, W)).toThrow();
    expect(() => openSecret([NEW], 'sealed:v1:2026-11:', W)).toThrow('not in the sealed form');
    expect(() => openSecret([NEW], 'sealed:v1:2026-11:AAAA', W)).toThrow('too short');
  });

  it('a value sealed for one purpose does not open as another (an endpoint secret copied into an alert rule)', () => {
    const stored = sealSecret([NEW], SECRET, W);
    expect(() => openSecret([NEW], stored, 'alert chat webhook URL')).toThrow();
    expect(openSecret([NEW], stored, W)).toBe(SECRET);
  });
});
