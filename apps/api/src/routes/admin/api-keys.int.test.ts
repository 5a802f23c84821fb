import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../../../../../test/test-api';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

describe('/v1/admin/api-keys and /v1/admin/audit-logs', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY });
  });
  afterAll(() => api.close());

  it('creates a key (raw key once, prefix, hash at rest) usable at once', async () => {
    const created = await api.request('POST', '/v1/admin/api-keys', {
      token: LEGACY,
      body: { name: 'producer', scopes: ['ingest', 'read'], expiresAt: new Date(Date.now() + 86_400_000).toISOString() },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'producer', scopes: ['ingest', 'read'] });
    expect(created.body.key.startsWith(created.body.keyPrefix)).toBe(true);
    expect(created.body.keyPrefix).toHaveLength(8);
    const stored = await api.deps.db.selectFrom('apiKeys').selectAll().where('id', '=', created.body.id).executeTakeFirstOrThrow();
    expect(stored.keyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(stored)).not.toContain(created.body.key);
    expect((await api.request('GET', '/v1/admin/audit-logs', { token: created.body.key })).status).toBe(200);

    const list = await api.request('GET', '/v1/admin/api-keys?limit=100', { token: LEGACY });
    const listed = list.body.keys.find((key: { id: string }) => key.id === created.body.id);
    expect(listed).not.toHaveProperty('key');
    expect(listed).toMatchObject({ revokedAt: null, keyPrefix: created.body.keyPrefix });
  });

  it('hides revoked keys unless includeRevoked=true, and 404s an unknown id', async () => {
    const created = await api.request('POST', '/v1/admin/api-keys', { token: LEGACY, body: { name: 'to-revoke', scopes: ['read'] } });
    expect(await api.request('DELETE', `/v1/admin/api-keys/${created.body.id}`, { token: LEGACY })).toMatchObject({ status: 200, body: { revoked: true } });
    const active = await api.request('GET', '/v1/admin/api-keys?limit=100', { token: LEGACY });
    expect(active.body.keys.map((key: { id: string }) => key.id)).not.toContain(created.body.id);
    const all = await api.request('GET', '/v1/admin/api-keys?limit=100&includeRevoked=true', { token: LEGACY });
    expect(all.body.keys.find((key: { id: string }) => key.id === created.body.id).revokedAt).not.toBeNull();
    const missing = await api.request('DELETE', `/v1/admin/api-keys/${randomUUID()}`, { token: LEGACY });
    expect(missing).toMatchObject({ status: 404, body: { error: 'API key not found' } });
  });

  it.each([
    ['missing name', { scopes: ['read'] }],
    ['empty name', { name: '', scopes: ['read'] }],
    ['scopes not an array', { name: 'x', scopes: 'read' }],
    ['unknown scope', { name: 'x', scopes: ['superuser'] }],
    ['no scopes', { name: 'x', scopes: [] }],
    ['malformed expiresAt', { name: 'x', scopes: ['read'], expiresAt: 'tomorrow' }],
    ['past expiresAt', { name: 'x', scopes: ['read'], expiresAt: '2001-01-01T00:00:00Z' }],
    ['name of the wrong type', { name: 42, scopes: ['read'] }],
  ])('POST with %s → 400 {error}', async (_name, body) => {
    const response = await api.request('POST', '/v1/admin/api-keys', { token: LEGACY, body });
    expect(response.status).toBe(400);
    expect(typeof response.body.error).toBe('string');
  });

  it('answers 400 for a body that is not JSON', async () => {
    const response = await api.request('POST', '/v1/admin/api-keys', { token: LEGACY, body: '{"name":', headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(400);
    expect(typeof response.body.error).toBe('string');
  });

  it.each([
    '/v1/admin/api-keys?limit=0',
    '/v1/admin/api-keys?limit=101',
    '/v1/admin/api-keys?offset=-1',
    '/v1/admin/api-keys?limit=abc',
    '/v1/admin/api-keys?includeRevoked=maybe',
    '/v1/admin/audit-logs?limit=0',
    '/v1/admin/audit-logs?limit=101',
    '/v1/admin/audit-logs?from=yesterday',
    '/v1/admin/audit-logs?to=2024-13-45T00:00:00Z',
    '/v1/admin/audit-logs?action=explode',
    '/v1/admin/audit-logs?resource=planet',
  ])('GET %s → 400 {error}', async (path) => {
    const response = await api.request('GET', path, { token: LEGACY });
    expect(response.status).toBe(400);
    expect(typeof response.body.error).toBe('string');
  });

  it('DELETE with a malformed id → 400', async () => {
    expect((await api.request('DELETE', '/v1/admin/api-keys/not-a-uuid', { token: LEGACY })).status).toBe(400);
  });

  it('filters the audit log by actor, resource, action and time, newest first, paginated', async () => {
    const start = new Date().toISOString();
    const named = await api.request('POST', '/v1/admin/api-keys', { token: LEGACY, body: { name: `auditor-${randomUUID()}`, scopes: ['full-admin'] } });
    const first = await api.request('POST', '/v1/admin/api-keys', { token: named.body.key, body: { name: 'by-auditor-1', scopes: ['read'] } });
    const second = await api.request('POST', '/v1/admin/api-keys', { token: named.body.key, body: { name: 'by-auditor-2', scopes: ['read'] } });
    await api.request('DELETE', `/v1/admin/api-keys/${first.body.id}`, { token: named.body.key });

    const byActor = await api.request('GET', `/v1/admin/audit-logs?actor=${encodeURIComponent(named.body.name)}&from=${encodeURIComponent(start)}`, {
      token: LEGACY,
    });
    expect(byActor.body.total).toBe(3);
    expect(byActor.body.logs.map((log: { action: string; resourceId: string }) => [log.action, log.resourceId])).toEqual([
      ['revoke', first.body.id],
      ['create', second.body.id],
      ['create', first.body.id],
    ]);
    expect(byActor.body.logs[0]).toMatchObject({ actor: named.body.name, actorKeyId: named.body.id, resource: 'api-key' });

    const revokes = await api.request('GET', `/v1/admin/audit-logs?actor=${encodeURIComponent(named.body.name)}&action=revoke`, { token: LEGACY });
    expect(revokes.body.total).toBe(1);
    const page = await api.request('GET', `/v1/admin/audit-logs?actor=${encodeURIComponent(named.body.name)}&limit=1&offset=1`, { token: LEGACY });
    expect(page.body).toMatchObject({ total: 3, limit: 1, offset: 1 });
    expect(page.body.logs[0].resourceId).toBe(second.body.id);
    const future = await api.request('GET', `/v1/admin/audit-logs?actor=${encodeURIComponent(named.body.name)}&from=2999-01-01T00:00:00Z`, { token: LEGACY });
    expect(future.body.total).toBe(0);
  });
});
