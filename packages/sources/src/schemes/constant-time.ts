import { createHash, timingSafeEqual } from 'node:crypto';

const HEX = /^[0-9a-f]+$/i;

/** Compares a computed digest with a hex string from a header without leaking where they differ. */
export function equalsHex(expected: Buffer, hex: string): boolean {
  if (hex.length !== expected.length * 2 || !HEX.test(hex)) return false;
  return timingSafeEqual(expected, Buffer.from(hex, 'hex'));
}

/** Compares two secrets in constant time; hashing first keeps even their lengths from showing. */
export function equalsSecret(expected: string, given: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(expected), digest(given));
}
