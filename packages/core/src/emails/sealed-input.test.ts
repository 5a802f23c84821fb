import { describe, expect, it } from 'vitest';
import { openSendInput, sealSendInput, systemEmailSealKey } from './sealed-input';

const input = {
  templateKey: 'auth-password-reset',
  to: 'ada@example.com',
  data: { resetUrl: 'http://localhost:3002/studio/reset-password?token=live-token-123', expiresInMinutes: 15 },
  idempotencyKey: 'password-reset:abc',
};

describe('sealed system-email input', () => {
  it('holds neither the link nor the address in clear, and opens to the same input', async () => {
    const key = systemEmailSealKey('a-secret-of-enough-length');
    const sealed = await sealSendInput(key, input);
    const decoded = sealed
      .split('.')
      .map((part) => Buffer.from(part, 'base64url').toString('latin1'))
      .join('.');
    for (const text of [sealed, decoded]) {
      expect(text).not.toContain('live-token-123');
      expect(text).not.toContain('ada@example.com');
    }
    expect(await openSendInput(key, sealed)).toEqual(input);
  });

  it('does not open under another AUTH_SECRET, nor once altered', async () => {
    const sealed = await sealSendInput(systemEmailSealKey('a-secret-of-enough-length'), input);
    await expect(openSendInput(systemEmailSealKey('another-secret-of-enough-length'), sealed)).rejects.toThrow();
    const parts = sealed.split('.');
    const tag = parts[4]!;
    parts[4] = `${tag[0] === 'A' ? 'B' : 'A'}${tag.slice(1)}`;
    await expect(openSendInput(systemEmailSealKey('a-secret-of-enough-length'), parts.join('.'))).rejects.toThrow();
  });
});
