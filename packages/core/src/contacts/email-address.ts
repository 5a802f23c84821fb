import { z } from 'zod';

/**
 * An email address: zod's format check, plus the RFC 5321 lengths (local part ≤ 64, each domain
 * label ≤ 63, whole ≤ 254) that `format: email` validators apply and zod's regex does not, so
 * the OpenAPI document (`format` + `pattern`) and the server accept the same addresses.
 */
export const emailAddress = z
  .email({ error: 'must be a valid email address' })
  .max(254)
  .regex(/^[^@]{1,64}@(?:[^.@]{1,63}\.)*[^.@]{1,63}$/, 'must be a valid email address');
