import { describe, expect, it } from 'vitest';
import type { Db } from '../db/database';
import { hashApiKey } from './api-key-secret';
import { Authenticator } from './authenticator';

/**
 * The cache logic is tested here with a query-recording stand-in for Kysely; the real
 * database path is covered by the integration auth matrix.
 */
function fakeDb(rows: Map<string, { id: string; name: string; scopes: string[]; expiresAt: Date | null }>) {
  const lookups: string[] = [];
  const chain = (hash?: string) => ({
    selectAll: () => chain(hash),
    select: () => chain(hash),
    where: (column: string, _op: string, value: unknown) => chain(column === 'keyHash' ? String(value) : hash),
    executeTakeFirst: async () => {
      if (hash === undefined) return undefined;
      lookups.push(hash);
      const row = rows.get(hash);
      return row && { ...row, keyPrefix: 'wm_', keyHash: hash, revokedAt: null, lastUsedAt: new Date(), createdAt: new Date() };
    },
  });
  const db = {
    selectFrom: () => chain(),
    selectNoFrom: () => ({ executeTakeFirstOrThrow: async () => ({ present: rows.size > 0 }) }),
    updateTable: () => ({ set: () => ({ where: () => ({ execute: async () => [] }) }) }),
  };
  return { db: db as unknown as Db, lookups };
}

describe('Authenticator', () => {
  it('accepts the legacy key as full-admin with actor legacy', async () => {
    const { db } = fakeDb(new Map());
    const auth = new Authenticator({ db, legacyKey: 'x'.repeat(32) });
    expect(await auth.authenticate('x'.repeat(32))).toEqual({
      kind: 'authenticated',
      principal: { actor: 'legacy', actorKeyId: null, actorType: 'legacy', actorUserId: null, scopes: ['full-admin'] },
    });
  });

  it('reports unconfigured when there is neither a legacy key nor a stored key', async () => {
    const { db } = fakeDb(new Map());
    expect(await new Authenticator({ db, legacyKey: undefined }).authenticate('anything')).toEqual({ kind: 'unconfigured' });
  });

  it('caches active keys for 60 seconds and re-reads after', async () => {
    let now = 1_000_000;
    const { db, lookups } = fakeDb(new Map([[hashApiKey('k1'), { id: 'id1', name: 'svc', scopes: ['read'], expiresAt: null }]]));
    const auth = new Authenticator({ db, legacyKey: undefined, now: () => now });
    await auth.authenticate('k1');
    await auth.authenticate('k1');
    expect(lookups).toHaveLength(1);
    now += 60_001;
    await auth.authenticate('k1');
    expect(lookups).toHaveLength(2);
    auth.forget(hashApiKey('k1'));
    await auth.authenticate('k1');
    expect(lookups).toHaveLength(3);
  });

  it('remembers an unknown token for the cache period: a repeat costs no lookup', async () => {
    let now = 1_000_000;
    const { db, lookups } = fakeDb(new Map([[hashApiKey('k1'), { id: 'id1', name: 'svc', scopes: ['read'], expiresAt: null }]]));
    const auth = new Authenticator({ db, legacyKey: undefined, now: () => now });
    expect(auth.recall('invented')).toBeUndefined();
    expect(await auth.isKey('invented')).toBe(false);
    expect(await auth.authenticate('invented')).toEqual({ kind: 'rejected', message: 'Invalid API key' });
    expect(auth.recall('invented')).toBe(false);
    expect(lookups).toHaveLength(1);
    now += 60_001;
    expect(auth.recall('invented')).toBeUndefined();
    expect(await auth.isKey('k1')).toBe(true);
    expect(auth.recall('k1')).toBe(true);
  });

  it('rejects an expired key even from the cache', async () => {
    let now = 1_000_000;
    const { db } = fakeDb(new Map([[hashApiKey('k1'), { id: 'id1', name: 'svc', scopes: ['read'], expiresAt: new Date(1_000_500) }]]));
    const auth = new Authenticator({ db, legacyKey: undefined, now: () => now });
    expect((await auth.authenticate('k1')).kind).toBe('authenticated');
    now = 1_000_600;
    expect(await auth.authenticate('k1')).toEqual({ kind: 'rejected', message: 'API key expired' });
  });
});
