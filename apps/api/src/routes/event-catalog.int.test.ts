import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey, startTestApi, type TestApi } from '../../../../test/test-api';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

describe('event catalog (journeys/events.ts), EVENT_CATALOG_MODE=reject', () => {
  let api: TestApi;
  let ingestKey: string;
  let readKey: string;
  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY, EVENT_CATALOG_MODE: 'reject' });
    ingestKey = await issueApiKey(api, LEGACY, 'producer', ['ingest']);
    readKey = await issueApiKey(api, LEGACY, 'reader', ['read']);
  });
  afterAll(() => api.close());

  it('GET /v1/admin/event-catalog lists each event with its JSON Schema and the journeys it starts or ends (read scope)', async () => {
    const response = await api.request('GET', '/v1/admin/event-catalog', { token: readKey });
    expect(response.status).toBe(200);
    const byName = new Map(response.body.events.map((entry: { name: string }) => [entry.name, entry]));
    expect(byName.get('trial.started')).toEqual({
      name: 'trial.started',
      schema: expect.objectContaining({ type: 'object', properties: { plan: expect.objectContaining({ enum: ['free', 'pro', 'team'] }) } }),
      triggers: ['trial-conversion'],
      exits: [],
    });
    expect(byName.get('subscription.updated')).toMatchObject({ triggers: [], exits: ['payment-recovery'] });
    expect(byName.get('user.deleted')).toMatchObject({ triggers: [], exits: ['re-engagement', 'welcome-series'] });
    expect((await api.request('GET', '/v1/admin/event-catalog', { token: ingestKey })).status).toBe(403);
  });

  it('POST /v1/events refuses a catalogued event with wrong properties (400 naming the path) and stores nothing', async () => {
    const userId = `u-${randomUUID()}`;
    const response = await api.request('POST', '/v1/events', {
      token: ingestKey,
      body: { name: 'trial.started', userId, email: `${userId}@example.com`, eventProperties: { plan: 'enterprise' } },
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(/^eventProperties\.plan: /);
    const missing = await api.request('POST', '/v1/events', { token: ingestKey, body: { name: 'user.inactive', userId } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(/^eventProperties\.daysInactive: /);
    const stored = await api.deps.db.selectFrom('events').select('id').where('userId', '=', userId).execute();
    expect(stored).toEqual([]);
  });

  it('accepts matching catalogued events (numbers may arrive as strings) and uncatalogued events as before', async () => {
    const userId = `u-${randomUUID()}`;
    const inactive = await api.request('POST', '/v1/events', {
      token: ingestKey,
      body: { name: 'user.inactive', userId, eventProperties: { daysInactive: '3' } },
    });
    expect(inactive.status).toBe(202);
    const free = await api.request('POST', '/v1/events', {
      token: ingestKey,
      body: { name: 'page.viewed', userId, eventProperties: { path: { nested: true } } },
    });
    expect(free.status).toBe(202);
  });
});
