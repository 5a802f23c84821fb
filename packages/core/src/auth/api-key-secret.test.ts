import { describe, expect, it } from 'vitest';
import { API_KEY_PREFIX, generateApiKey, hashApiKey, readBearerToken } from './api-key-secret';

describe('API key secrets', () => {
  it('generates prefixed keys with 32 random bytes and an 8-character prefix', () => {
    const { key, keyPrefix, keyHash } = generateApiKey();
    expect(key.startsWith(API_KEY_PREFIX)).toBe(true);
    expect(Buffer.from(key.slice(API_KEY_PREFIX.length), 'base64url')).toHaveLength(32);
    expect(keyPrefix).toBe(key.slice(0, 8));
    expect(keyHash).toBe(hashApiKey(key));
    expect(generateApiKey().key).not.toBe(key);
  });

  it('hashes with SHA-256 (hex)', () => {
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('reads bearer tokens and rejects malformed headers', () => {
    expect(readBearerToken('Bearer wm_abc')).toBe('wm_abc');
    expect(readBearerToken('bearer wm_abc')).toBe('wm_abc');
    expect(readBearerToken(undefined)).toBeUndefined();
    expect(readBearerToken('Basic dXNlcjpwYXNz')).toBeUndefined();
    expect(readBearerToken('Bearer')).toBeUndefined();
    expect(readBearerToken('Bearer a b')).toBeUndefined();
  });
});
