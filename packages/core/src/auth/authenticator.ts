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
  /** Active stored keys are cached for 60 seconds. */
  cacheTtlMs?: number;
  now?: () => number;
  onTouchError?: (error: unknown) => void;
}

const LAST_USED_WRITE_INTERVAL_MS = 60_000;
/** At most this many unknown tokens are remembered (the oldest go first): a flood of invented tokens cannot grow it. */
const UNKNOWN_TOKENS_KEPT = 10_000;

/**
 * Authenticates one bearer token (reading the header is the caller's job).
 * Holds the 60-second cache of active keys; `forget` evicts a revoked key at once.
 */
export class Authenticator {
  private readonly cache = new Map<string, CachedKey>();
  /** hashes of tokens the database did not know, with when it said so (the negative cache) */
  private readonly unknown = new Map<string, number>();
  /** whether any active key exists, while it is true (it only matters when none does) */
  private configuredAt: number | undefined;
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

  /**
   * What this process already knows of a token, without asking the database: `true` for the
   * legacy key or a key it has seen active (until revoked), `false` for one the database did not
   * know in the last cache period, `undefined` when only a lookup can tell. The rate limiter
   * counts a token as a key only when it is one, so invented tokens share their address's budget.
   */
  recall(token: string): boolean | undefined {
    if (this.deps.legacyKey !== undefined && sameSecret(token, this.deps.legacyKey)) return true;
    const keyHash = hashApiKey(token);
    if (this.cache.has(keyHash)) return true;
    const unknownAt = this.unknown.get(keyHash);
    if (unknownAt !== undefined && this.now() - unknownAt < this.cacheTtlMs) return false;
    return undefined;
  }

  /** Whether a token is an active key, looked up (and remembered either way) when recall cannot tell. */
  async isKey(token: string): Promise<boolean> {
    return this.recall(token) ?? (await this.lookup(hashApiKey(token))) !== undefined;
  }

  private async lookup(keyHash: string): Promise<ApiKeyRow | undefined> {
    const cached = this.cache.get(keyHash);
    if (cached && this.now() - cached.cachedAt < this.cacheTtlMs) return cached.row;
    const unknownAt = this.unknown.get(keyHash);
    if (cached === undefined && unknownAt !== undefined && this.now() - unknownAt < this.cacheTtlMs) return undefined;
    const row = await findActiveApiKeyByHash(this.deps.db, keyHash);
    if (row) {
      this.cache.set(keyHash, { row, cachedAt: this.now() });
      this.unknown.delete(keyHash);
    } else {
      this.cache.delete(keyHash);
      this.rememberUnknown(keyHash);
    }
    return row;
  }

  private rememberUnknown(keyHash: string): void {
    this.unknown.delete(keyHash);
    this.unknown.set(keyHash, this.now());
    // a Map keeps insertion order, so the first entry is the oldest
    for (const oldest of this.unknown.keys()) {
      if (this.unknown.size <= UNKNOWN_TOKENS_KEPT) break;
      this.unknown.delete(oldest);
    }
  }

  private async rejectOrUnconfigured(message: string): Promise<AuthOutcome> {
    if (this.deps.legacyKey === undefined && !(await this.anyActiveKey())) return { kind: 'unconfigured' };
    return { kind: 'rejected', message };
  }

  /** Once a key exists, "is any key configured?" is asked again once a cache period, not on every rejected token. */
  private async anyActiveKey(): Promise<boolean> {
    if (this.configuredAt !== undefined && this.now() - this.configuredAt < this.cacheTtlMs) return true;
    const configured = await hasAnyActiveApiKey(this.deps.db);
    this.configuredAt = configured ? this.now() : undefined;
    return configured;
  }

  /** lastUsedAt is written at most once a minute per key so a busy key does not write on every request. */
  private touch(row: ApiKeyRow): void {
    const last = this.lastTouched.get(row.id) ?? row.lastUsedAt?.getTime() ?? 0;
    if (this.now() - last < LAST_USED_WRITE_INTERVAL_MS) return;
    this.lastTouched.set(row.id, this.now());
    touchApiKey(this.deps.db, row.id).catch((error: unknown) => this.deps.onTouchError?.(error));
  }
}
