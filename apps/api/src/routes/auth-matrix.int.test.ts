import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '@waymark/core/auth/api-keys';
import type { Scope } from '@waymark/core/auth/scopes';
import { startTestApi, type TestApi } from '../../../../test/test-api';
import { withScratchDatabase } from '../../../../test/scratch-database';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

/** One probe per plane and privilege level (the scopes of README.md, Authentication and limits). */
const probes = {
  read: { method: 'GET', path: '/v1/admin/audit-logs' },
  'full-admin': { method: 'GET', path: '/v1/admin/api-keys' },
} as const;

describe('bearer auth matrix', () => {
  let api: TestApi;
  const keys: Record<string, string> = {};

  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY });
    const scopeSets: Record<string, Scope[]> = {
      read: ['read'],
      journeyAdmin: ['journey-admin'],
      fullAdmin: ['full-admin'],
      ingest: ['ingest'],
      readIngest: ['read', 'ingest'],
    };
    for (const [name, scopes] of Object.entries(scopeSets)) {
      const created = await api.request('POST', '/v1/admin/api-keys', { token: LEGACY, body: { name: `matrix-${name}`, scopes } });
      expect(created.status).toBe(201);
      keys[name] = created.body.key;
    }
    keys.expired = (await createApiKey(api.deps.db, { name: 'matrix-expired', scopes: ['full-admin'], expiresAt: new Date(Date.now() - 1_000) })).key;
    const revoked = await api.request('POST', '/v1/admin/api-keys', { token: LEGACY, body: { name: 'matrix-revoked', scopes: ['full-admin'] } });
    keys.revoked = revoked.body.key;
    expect((await api.request('DELETE', `/v1/admin/api-keys/${revoked.body.id}`, { token: LEGACY })).status).toBe(200);
  });
  afterAll(() => api.close());

  const expectations: [string, keyof typeof probes, number][] = [
    ['read', 'read', 200],
    ['read', 'full-admin', 403],
    ['journeyAdmin', 'read', 200],
    ['journeyAdmin', 'full-admin', 403],
    ['fullAdmin', 'read', 200],
    ['fullAdmin', 'full-admin', 200],
    ['ingest', 'read', 403],
    ['ingest', 'full-admin', 403],
    ['readIngest', 'read', 200],
    ['readIngest', 'full-admin', 403],
  ];

  it.each(expectations)('%s key on a %s route → %i', async (key, probe, status) => {
    const response = await api.request(probes[probe].method, probes[probe].path, { token: keys[key] });
    expect(response.status).toBe(status);
    if (status === 403) expect(response.body).toEqual({ error: 'Insufficient scope' });
  });

  // data plane (ingest) and a journey-admin mutation, with the bodies they need
  const bodyProbes = {
    ingest: { method: 'POST', path: '/v1/events', body: { name: 'matrix.probe', userId: 'matrix-user' }, ok: 202 },
    'journey-admin': { method: 'PATCH', path: '/v1/admin/journeys/welcome-series', body: { enabled: true }, ok: 200 },
  } as const;
  const bodyExpectations: [string, keyof typeof bodyProbes, boolean][] = [
    ['ingest', 'ingest', true],
    ['read', 'ingest', false],
    ['journeyAdmin', 'ingest', false],
    ['fullAdmin', 'ingest', true],
    ['readIngest', 'ingest', true],
    ['read', 'journey-admin', false],
    ['journeyAdmin', 'journey-admin', true],
    ['fullAdmin', 'journey-admin', true],
    ['ingest', 'journey-admin', false],
  ];

  it.each(bodyExpectations)('%s key on the %s route → allowed: %s', async (key, probe, allowed) => {
    const { method, path, body, ok } = bodyProbes[probe];
    const response = await api.request(method, path, { token: keys[key], body });
    expect(response.status).toBe(allowed ? ok : 403);
    if (!allowed) expect(response.body).toEqual({ error: 'Insufficient scope' });
  });

  it('accepts the legacy key everywhere and audits it as actor legacy', async () => {
    const created = await api.request('POST', '/v1/admin/api-keys', { token: LEGACY, body: { name: 'audited', scopes: ['read'] } });
    const logs = await api.request('GET', `/v1/admin/audit-logs?resource=api-key&action=create&actor=legacy&limit=100`, { token: LEGACY });
    const entry = logs.body.logs.find((log: { resourceId: string }) => log.resourceId === created.body.id);
    expect(entry).toMatchObject({ actor: 'legacy', actorKeyId: null, action: 'create', resource: 'api-key', detail: { name: 'audited', scopes: ['read'] } });
    expect(typeof entry.ipAddress).toBe('string');
  });

  it.each([
    ['no header', undefined, 401],
    ['unknown key', { authorization: 'Bearer wm_doesnotexist' }, 401],
    ['malformed header', { authorization: 'Token abc' }, 401],
    ['empty bearer', { authorization: 'Bearer ' }, 401],
  ])('%s → %i with an error body', async (_name, headers, status) => {
    const response = await api.request('GET', '/v1/admin/audit-logs', headers === undefined ? {} : { headers });
    expect(response.status).toBe(status);
    expect(typeof response.body.error).toBe('string');
  });

  it('rejects an expired key with 401', async () => {
    const response = await api.request('GET', '/v1/admin/audit-logs', { token: keys.expired });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ error: 'API key expired' });
  });

  it('rejects a revoked key with 401 at once on the revoking instance', async () => {
    expect((await api.request('GET', '/v1/admin/audit-logs', { token: keys.revoked })).status).toBe(401);
  });

  it('drops a revoked key from other instances at once (published through Redis)', async () => {
    const other = await startTestApi({ ADMIN_API_KEY: LEGACY });
    try {
      const created = await api.request('POST', '/v1/admin/api-keys', { token: LEGACY, body: { name: 'two-instances', scopes: ['read'] } });
      // warm the other instance's 60-second cache
      expect((await other.request('GET', '/v1/admin/audit-logs', { token: created.body.key })).status).toBe(200);
      expect((await api.request('DELETE', `/v1/admin/api-keys/${created.body.id}`, { token: LEGACY })).status).toBe(200);
      let status = 0;
      for (let attempt = 0; attempt < 20 && status !== 401; attempt++) {
        status = (await other.request('GET', '/v1/admin/audit-logs', { token: created.body.key })).status;
        if (status !== 401) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(status).toBe(401);
    } finally {
      await other.close();
    }
  });

  it('records lastUsedAt when a stored key is used', async () => {
    const created = await api.request('POST', '/v1/admin/api-keys', { token: LEGACY, body: { name: 'used', scopes: ['full-admin'] } });
    expect(created.body).not.toHaveProperty('lastUsedAt');
    await api.request('GET', '/v1/admin/api-keys', { token: created.body.key });
    let lastUsedAt: string | null = null;
    for (let attempt = 0; attempt < 20 && lastUsedAt === null; attempt++) {
      const list = await api.request('GET', '/v1/admin/api-keys?limit=100', { token: LEGACY });
      lastUsedAt = list.body.keys.find((key: { id: string }) => key.id === created.body.id).lastUsedAt;
      if (lastUsedAt === null) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(lastUsedAt).not.toBeNull();
  });

  it('answers 503 on the admin plane when no key of any kind is configured', async () => {
    await withScratchDatabase(async (databaseUrl) => {
      const empty = await startTestApi({ DATABASE_URL: databaseUrl, ADMIN_API_KEY: undefined });
      try {
        const response = await empty.request('GET', '/v1/admin/audit-logs', { token: 'wm_whatever' });
        expect(response.status).toBe(503);
        expect(response.body.error).toMatch(/No admin API key is configured/);
        expect((await empty.request('GET', '/v1/admin/api-keys')).status).toBe(503);
      } finally {
        await empty.close();
      }
    });
  });

  // contact preferences, a contact's detail, the data plane's send and a template's test send: no key is 401, a key without the route's scope 403
  it.each([
    { method: 'GET', path: `/v1/admin/contacts/${randomUUID()}/preferences`, refused: ['ingest'] },
    { method: 'PUT', path: `/v1/admin/contacts/${randomUUID()}/preferences`, refused: ['read', 'ingest'] },
    { method: 'GET', path: `/v1/admin/contacts/${randomUUID()}`, refused: ['ingest'] },
    { method: 'POST', path: '/v1/emails', refused: ['read', 'journeyAdmin'] },
    // a test send of a template: a person's mailbox is reached, so never by a read or data-plane key
    { method: 'POST', path: '/v1/admin/templates/welcome/send-test', refused: ['read', 'ingest'] },
    { method: 'GET', path: `/v1/admin/contacts/${randomUUID()}/explain?journeyId=welcome-series`, refused: ['ingest'] },
    { method: 'POST', path: '/v1/admin/webhook-endpoints', refused: ['read', 'journeyAdmin', 'ingest'] },
    // the routes that seal or open a stored secret (docs/security.md, "What is kept secret, and where")
    { method: 'POST', path: `/v1/admin/webhook-endpoints/${randomUUID()}/rotate-secret`, refused: ['read', 'journeyAdmin', 'ingest'] },
    { method: 'GET', path: '/v1/admin/alerts/rules', refused: ['read', 'journeyAdmin', 'ingest'] },
    { method: 'POST', path: '/v1/admin/alerts/rules', refused: ['read', 'journeyAdmin', 'ingest'] },
    { method: 'PATCH', path: `/v1/admin/alerts/rules/${randomUUID()}`, refused: ['read', 'journeyAdmin', 'ingest'] },
    { method: 'DELETE', path: `/v1/contacts/${randomUUID()}`, refused: ['read', 'journeyAdmin'] },
    { method: 'POST', path: '/v1/events', refused: ['read', 'journeyAdmin'] },
  ] as const)('$method $path refuses a caller without its scope', async ({ method, path, refused }) => {
    const body = method === 'GET' ? undefined : {};
    expect((await api.request(method, path, { body })).status).toBe(401);
    for (const name of refused) expect({ name, status: (await api.request(method, path, { token: keys[name], body })).status }).toEqual({ name, status: 403 });
  });

  // the session routes whose answers changed: no session is 401 (a valid body, so only the session is missing)
  it.each([
    { method: 'POST', path: '/api/auth/organization/create', body: { name: 'No session' } },
    { method: 'DELETE', path: `/api/auth/organization/${randomUUID()}/members/${randomUUID()}`, body: undefined },
    { method: 'POST', path: '/api/auth/change-password', body: { currentPassword: 'an old password', newPassword: 'a new password here' } },
  ] as const)('$method $path refuses a caller without a session', async ({ method, path, body }) => {
    const response = await api.request(method, path, { body, headers: { origin: api.config.apiPublicUrl } });
    expect(response.status, response.text).toBe(401);
  });
});
