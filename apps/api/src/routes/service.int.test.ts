import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../../../../test/test-api';

describe('service conventions (SPEC §4)', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api.close());

  it('reports healthy with every dependency up', async () => {
    const response = await api.request('GET', '/v1/health');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'healthy', version: '0.1.0' });
    expect(typeof response.body.uptime).toBe('number');
    expect(Number.isNaN(Date.parse(response.body.timestamp))).toBe(false);
  });

  it('reports degraded when Redis or Temporal is unreachable', async () => {
    const broken = await startTestApi({ CACHE_URL: 'redis://127.0.0.1:1', TEMPORAL_ADDRESS: '127.0.0.1:1' });
    try {
      const response = await broken.request('GET', '/v1/health');
      expect(response.status).toBe(200);
      expect(response.body.status).toBe('degraded');
    } finally {
      await broken.close();
    }
  });

  it('echoes a valid X-Request-Id and generates one otherwise', async () => {
    const echoed = await api.request('GET', '/v1/health', { headers: { 'x-request-id': 'abc-123' } });
    expect(echoed.headers.get('x-request-id')).toBe('abc-123');
    const generated = await api.request('GET', '/v1/health', { headers: { 'x-request-id': 'bad id\twith spaces' } });
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('sends secure headers and permissive CORS', async () => {
    const response = await api.request('GET', '/v1/health', { headers: { origin: 'https://app.example.com' } });
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
  });

  it('answers unknown routes with 404 {error}', async () => {
    const response = await api.request('GET', '/v1/nope');
    expect(response.status).toBe(404);
    expect(response.body.error).toMatch(/not found/);
  });

  it('serves OpenAPI 3.1 with every route and an interactive reference', async () => {
    const spec = await api.request('GET', '/openapi.json');
    expect(spec.status).toBe(200);
    expect(spec.body.openapi).toBe('3.1.0');
    expect(Object.keys(spec.body.paths)).toEqual(
      expect.arrayContaining(['/v1/health', '/v1/admin/api-keys', '/v1/admin/api-keys/{id}', '/v1/admin/audit-logs']),
    );
    const listKeys = spec.body.paths['/v1/admin/api-keys'].get;
    // an admin route takes a bearer key or a session cookie (docs/auth.md); the data plane keys only
    expect(listKeys.security).toEqual([{ bearer: [] }, { session: [] }]);
    expect(listKeys.description).toContain('full-admin');
    expect(spec.body.paths['/v1/health'].get.security).toBeUndefined();
    const docs = await api.request('GET', '/docs');
    expect([200, 302]).toContain(docs.status);
  });

  it('serves neither /openapi.json nor /docs in production', async () => {
    const production = await startTestApi({ NODE_ENV: 'production' });
    try {
      expect((await production.request('GET', '/openapi.json')).status).toBe(404);
      expect((await production.request('GET', '/docs')).status).toBe(404);
    } finally {
      await production.close();
    }
  });
});
