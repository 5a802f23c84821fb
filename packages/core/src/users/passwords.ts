import { hash, verify } from '@node-rs/argon2';
import { z } from 'zod';
import { badRequest } from '../errors/app-error';

/**
 * argon2id at the OWASP Password Storage Cheat Sheet's first recommended setting
 * (m = 19 MiB, t = 2, p = 1). `@node-rs/argon2` runs it on the libuv pool, off the event loop.
 */
const ARGON2ID = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1, outputLen: 32 } as const;

/** Accounts take 8 to 128 characters (docs/auth.md); the upper bound caps hashing cost. */
export const passwordSchema = z.string().min(8, 'must be at least 8 characters').max(128, 'must be at most 128 characters');

/** A new password's bounds as a 400 (the CLI and boot see the same message as the routes). */
export function checkNewPassword(password: string): string {
  const result = passwordSchema.safeParse(password);
  if (!result.success) throw badRequest(`Invalid password: ${result.error.issues[0]?.message ?? 'invalid'}`);
  return result.data;
}

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2ID);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    // a malformed stored hash verifies nothing; it is not the caller's error
    return false;
  }
}

let decoyHash: Promise<string> | undefined;

/**
 * A hash to verify against when the email is unknown, so an unknown address costs the same
 * argon2id work as a wrong password and response times do not reveal which accounts exist.
 */
export function decoyPasswordHash(): Promise<string> {
  decoyHash ??= hashPassword('decoy password that matches no account');
  return decoyHash;
}
