import type { Db } from '../db/database';
import type { ApiKeyRow, AuditActorType } from '../db/schema';
import { hashApiKey, sameSecret } from './api-key-secret';
import { findActiveApiKeyByHash, hasAnyActiveApiKey, touchApiKey } from './api-keys';
import { parseScopes, type Scope } from './scopes';

/**
 * Who is calling: a stored key, `legacy` for ADMIN_API_KEY, or a signed-in user (actor = the
 * user's email, scopes from the role in the active organization). Routes never care which.
 */
export interface Principal {
  actor: string;
  actorKeyId: string | null;
  actorType: AuditActorType;
  /** set for a session: the user behind it */
  actorUserId: string | null;
  scopes: Scope[];
}

export type AuthOutcome = { kind: 'authenticated'; principal: Principal } | { kind: 'rejected'; message: string } | { kind: 'unconfigured' };

interface CachedKey {
  row: ApiKeyRow;
  cachedAt: number;
}

export interface AuthenticatorDeps {
  db: Db;
  legacyKey: string | undefined;
  /** SPEC §5: active stored keys are cached for 60 seconds. */
  cacheTtlMs?: number;
  now?: () => number;
  onTouchError?: (error: unknown) => void;
}

const LAST_USED_WRITE_INTERVAL_MS = 60_000;

/**
 * SPEC §5 admin request algorithm, steps 2–7 (step 1, reading the header, is the caller's).
 * Holds the 60-second cache of active keys; `forget` evicts a revoked key at once.
 */
export class Authenticator {
  private readonly cache = new Map<string, CachedKey>();
  private readonly lastTouched = new Map<string, number>();
  private readonly cacheTtlMs: number;
  private readonly now: () => number;

  constructor(private readonly deps: AuthenticatorDeps) {
    this.cacheTtlMs = deps.cacheTtlMs ?? 60_000;
    this.now = deps.now ?? Date.now;
  }

  async authenticate(token: string | undefined): Promise<AuthOutcome> {
    if (token !== undefined && this.deps.legacyKey !== undefined && sameSecret(token, this.deps.legacyKey)) {
      return { kind: 'authenticated', principal: { actor: 'legacy', actorKeyId: null, actorType: 'legacy', actorUserId: null, scopes: ['full-admin'] } };
    }
    const row = token === undefined ? undefined : await this.lookup(hashApiKey(token));
    if (row === undefined) return this.rejectOrUnconfigured(token === undefined ? 'Missing bearer token' : 'Invalid API key');
    if (row.expiresAt !== null && row.expiresAt.getTime() <= this.now()) {
      return { kind: 'rejected', message: 'API key expired' };
    }
    this.touch(row);
    return { kind: 'authenticated', principal: { actor: row.name, actorKeyId: row.id, actorType: 'key', actorUserId: null, scopes: parseScopes(row.scopes) } };
  }

  forget(keyHash: string): void {
    this.cache.delete(keyHash);
  }

  private async lookup(keyHash: string): Promise<ApiKeyRow | undefined> {
    const cached = this.cache.get(keyHash);
    if (cached && this.now() - cached.cachedAt < this.cacheTtlMs) return cached.row;
    const row = await findActiveApiKeyByHash(this.deps.db, keyHash);
    if (row) this.cache.set(keyHash, { row, cachedAt: this.now() });
    else this.cache.delete(keyHash);
    return row;
  }

  private async rejectOrUnconfigured(message: string): Promise<AuthOutcome> {
    if (this.deps.legacyKey === undefined && !(await hasAnyActiveApiKey(this.deps.db))) return { kind: 'unconfigured' };
    return { kind: 'rejected', message };
  }

  /** lastUsedAt is written at most once a minute per key so a busy key does not write on every request. */
  private touch(row: ApiKeyRow): void {
    const last = this.lastTouched.get(row.id) ?? row.lastUsedAt?.getTime() ?? 0;
    if (this.now() - last < LAST_USED_WRITE_INTERVAL_MS) return;
    this.lastTouched.set(row.id, this.now());
    touchApiKey(this.deps.db, row.id).catch((error: unknown) => this.deps.onTouchError?.(error));
  }
}
