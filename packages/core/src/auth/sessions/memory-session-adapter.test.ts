import { describe, expect, it } from 'vitest';
import type { Db } from '../../db/database';
import { MemorySessionAdapter } from './memory-session-adapter';
import { memoryResetTokens } from './reset-token-store';
import { hashToken } from '../../tokens/tokens';

// the user lookup (getSessionAndUser) is PostgreSQL's part and is covered by the integration tests
const adapter = () => new MemorySessionAdapter({ db: undefined as unknown as Db });
const session = (id: string, userId: string, expiresAt = Date.now() + 60_000) => ({ id, userId, expiresAt: new Date(expiresAt), attributes: {} });

describe('in-memory session store (development without Redis)', () => {
  it('stores, extends and deletes a session, listing a user’s sessions by digest', async () => {
    const store = adapter();
    await store.setSession(session('a', 'u1'));
    await store.setSession(session('b', 'u1'));
    await store.setSession(session('c', 'u2'));
    expect((await store.getSession('a'))?.userId).toBe('u1');
    expect((await store.getUserSessions('u1')).map((s) => s.id).sort()).toEqual([hashToken('a'), hashToken('b')].sort());

    const later = new Date(Date.now() + 120_000);
    await store.updateSessionExpiration('a', later);
    expect((await store.getSession('a'))?.expiresAt).toEqual(later);
    await store.updateSessionExpiration('missing', later);
    expect(await store.getSession('missing')).toBeNull();

    await store.deleteSession('a');
    expect(await store.getSession('a')).toBeNull();
    await store.deleteUserSessions('u1');
    expect(await store.getSession('b')).toBeNull();
    expect(await store.getUserSessions('u1')).toEqual([]);
    expect((await store.getSession('c'))?.userId).toBe('u2');
  });

  it('drops a session a minute after it ended, as the Redis key TTL does', async () => {
    const store = adapter();
    await store.setSession(session('old', 'u1', Date.now() - 61_000));
    await store.setSession(session('just-ended', 'u1', Date.now() - 1_000));
    await store.deleteExpiredSessions();
    expect(await store.getSession('old')).toBeNull();
    // validation, not the store, decides that this one has ended
    expect(await store.getSession('just-ended')).not.toBeNull();
  });

  it('spends a reset token once', async () => {
    const tokens = memoryResetTokens();
    await tokens.save('digest', { userId: 'u1', expiresAt: Date.now() + 60_000 });
    expect(await tokens.take('digest')).toEqual({ userId: 'u1', expiresAt: expect.any(Number) });
    expect(await tokens.take('digest')).toBeUndefined();
    expect(await tokens.take('unknown')).toBeUndefined();
  });

  it("only a user's newest reset token works, and a revoke ends it", async () => {
    const tokens = memoryResetTokens();
    const reset = { userId: 'u1', expiresAt: Date.now() + 60_000 };
    await tokens.save('older', reset);
    await tokens.save('newer', reset);
    expect(await tokens.take('older')).toBeUndefined();
    await tokens.save('revoked', reset);
    await tokens.revokeUser('u1');
    expect(await tokens.take('revoked')).toBeUndefined();
    await tokens.save('live', reset);
    expect(await tokens.take('live')).toEqual(reset);
  });
});
