import { equalsSecret, type SourceHeaders, type Verification } from '@waymark/sources';
import type { MountedAuth } from './source-registry';

function bearer(headers: SourceHeaders): string | undefined {
  const value = headers.authorization;
  return value?.toLowerCase().startsWith('bearer ') ? value.slice(7).trim() : undefined;
}

function matchesAny(secrets: readonly string[], given: string | undefined): boolean {
  if (given === undefined || given === '') return false;
  // every secret is compared (no early exit), so timing says nothing about which one matched
  return secrets.reduce((found, secret) => equalsSecret(secret, given) || found, false);
}

/**
 * The two variants: `match` compares a header (or `Authorization: Bearer`) with the secret;
 * without one it refuses everything unless its `*_WEBHOOK_OPEN=true` opened it (development only:
 * production refuses to start so). `signature` verifies the raw bytes and refuses everything
 * without a secret. The reason is for the log only: callers answer a bare 401.
 */
export function authenticateSource(auth: MountedAuth, rawBody: Buffer, headers: SourceHeaders): Verification {
  if (auth.type === 'match') {
    if (auth.secrets.length === 0) return auth.open ? { ok: true } : { ok: false, reason: 'secret not configured' };
    const given = auth.header === undefined ? bearer(headers) : (headers[auth.header] ?? bearer(headers));
    return matchesAny(auth.secrets, given) ? { ok: true } : { ok: false, reason: given === undefined ? 'missing secret header' : 'secret does not match' };
  }
  if (auth.verifiers.length === 0) return { ok: false, reason: 'signing secret not configured' };
  if (auth.fallbackHeader !== undefined && headers[auth.fallbackHeader] !== undefined) {
    return matchesAny(auth.secrets, headers[auth.fallbackHeader]) ? { ok: true } : { ok: false, reason: `${auth.fallbackHeader} does not match` };
  }
  let first: Verification | undefined;
  for (const verifier of auth.verifiers) {
    const result = verifier.verify(rawBody, headers);
    if (result.ok) return result;
    first ??= result;
  }
  return first!;
}
