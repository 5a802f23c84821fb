import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordDeadLetter } from '@waymark/core/dlq/dead-letters';
import { startTestApi, type TestApi, type TestResponse } from '../../../../test/test-api';

/**
 * Conformance of the HTTP surface: the endpoint table, the exact field names,
 * the error shape and statuses of §7 and the page-size bounds of §8 — the parts the per-route
 * tests do not already pin down.
 */
const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

const keysOf = (value: object) => Object.keys(value).sort();
const sorted = (names: string[]) => [...names].sort();

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() - start > timeoutMs) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** An error body is exactly `{error: string}`. */
function expectError(response: TestResponse, status: number, message?: string) {
  expect({ status: response.status, body: response.body }).toMatchObject({ status, body: { error: message ?? expect.any(String) } });
  expect(keysOf(response.body as object)).toEqual(['error']);
}

const CONTACT = ['id', 'externalId', 'email', 'properties', 'firstSeenAt', 'lastSeenAt', 'createdAt', 'updatedAt'];
const PREFERENCES = ['id', 'userId', 'email', 'unsubscribedAll', 'suppressed', 'bounceCount', 'categories', 'suppressedAt', 'lastBounceAt'];
const EVENT = ['id', 'userId', 'event', 'properties', 'occurredAt'];
const JOURNEY_STATE = [
  'id',
  'userId',
  'userEmail',
  'journeyId',
  'currentNodeId',
  'status',
  'workflowRunId',
  'context',
  'errorMessage',
  'entryCount',
  'completedAt',
  'exitedAt',
  'createdAt',
  'updatedAt',
];
const JOURNEY_LOG = ['id', 'fromNodeId', 'toNodeId', 'action', 'detail', 'createdAt'];
const API_KEY = ['id', 'name', 'keyPrefix', 'scopes', 'expiresAt', 'revokedAt', 'lastUsedAt', 'createdAt'];
const AUDIT_ENTRY = ['id', 'actor', 'actorKeyId', 'action', 'resource', 'resourceId', 'detail', 'ipAddress', 'createdAt'];
const ALERT_RULE = ['id', 'name', 'type', 'threshold', 'channel', 'channelConfig', 'cooldownMinutes', 'enabled', 'lastTriggeredAt', 'createdAt', 'updatedAt'];
const DLQ_ENTRY = ['id', 'source', 'sourceId', 'payload', 'error', 'retryCount', 'status', 'retriedAt', 'createdAt'];
const IMPORT_JOB = ['id', 'status', 'totalRows', 'processedRows', 'failedRows', 'errors'];

describe('conformance of the HTTP surface', () => {
  let api: TestApi;
  const keys: Record<string, string> = {};
  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY });
    for (const [name, scopes] of Object.entries({ read: ['read'], journeyAdmin: ['journey-admin'], ingest: ['ingest'] })) {
      keys[name] = (await api.request('POST', '/v1/admin/api-keys', { token: LEGACY, body: { name: `conf-${name}`, scopes } })).body.key;
    }
  });
  afterAll(() => api.close());

  const get = (path: string, token = LEGACY) => api.request('GET', path, { token });

  it('publishes every endpoint of the §4 tables with its method', async () => {
    const spec = await api.request('GET', '/openapi.json');
    expect(spec.status).toBe(200);
    const paths = spec.body.paths as Record<string, Record<string, unknown>>;
    const endpoints: [string, string][] = [
      ['get', '/v1/health'],
      ['post', '/v1/events'],
      ['get', '/v1/admin/contacts'],
      ['post', '/v1/admin/contacts'],
      ['get', '/v1/admin/contacts/{id}'],
      ['patch', '/v1/admin/contacts/{id}'],
      ['delete', '/v1/admin/contacts/{id}'],
      ['get', '/v1/admin/contacts/{contactId}/preferences'],
      ['put', '/v1/admin/contacts/{contactId}/preferences'],
      ['get', '/v1/admin/contacts/{id}/timeline'],
      ['post', '/v1/admin/contacts/import'],
      ['get', '/v1/admin/contacts/import/{jobId}'],
      ['get', '/v1/admin/contacts/export'],
      ['post', '/v1/admin/suppressions/import'],
      ['get', '/v1/admin/journeys'],
      ['get', '/v1/admin/journeys/{id}'],
      ['patch', '/v1/admin/journeys/{id}'],
      ['get', '/v1/admin/journeys/{id}/states'],
      ['get', '/v1/admin/journeys/{id}/states/{stateId}'],
      ['delete', '/v1/admin/journeys/{id}/states/{stateId}'],
      ['post', '/v1/admin/journeys/{id}/enroll'],
      ['post', '/v1/admin/journeys/{id}/enroll/batch'],
      ['get', '/v1/admin/journey-logs/{stateId}'],
      ['get', '/v1/admin/events'],
      ['get', '/v1/admin/events/{id}'],
      ['post', '/v1/admin/events/replay'],
      ['get', '/v1/admin/emails'],
      ['get', '/v1/admin/emails/{id}'],
      ['get', '/v1/admin/api-keys'],
      ['post', '/v1/admin/api-keys'],
      ['delete', '/v1/admin/api-keys/{id}'],
      ['get', '/v1/admin/audit-logs'],
      ['get', '/v1/admin/alerts/rules'],
      ['post', '/v1/admin/alerts/rules'],
      ['patch', '/v1/admin/alerts/rules/{id}'],
      ['delete', '/v1/admin/alerts/rules/{id}'],
      ['get', '/v1/admin/alerts/history'],
      ['get', '/v1/admin/dlq'],
      ['post', '/v1/admin/dlq/{id}/retry'],
      ['delete', '/v1/admin/dlq/{id}'],
      ['get', '/v1/t/c/{id}'],
      ['get', '/v1/t/o/{id}'],
      ['get', '/v1/email/unsubscribe'],
      ['get', '/v1/email/preferences'],
      ['post', '/v1/webhooks/email-provider'],
    ];
    const missing = endpoints.filter(([method, path]) => paths[path]?.[method] === undefined);
    expect(missing).toEqual([]);
  });

  it('GET /v1/health has exactly {status, uptime, timestamp, version}', async () => {
    const health = await api.request('GET', '/v1/health');
    expect(health.status).toBe(200);
    expect(keysOf(health.body)).toEqual(sorted(['status', 'uptime', 'timestamp', 'version']));
    expect(health.body).toMatchObject({ status: 'healthy', uptime: expect.any(Number), timestamp: expect.any(String), version: expect.any(String) });
  });

  describe('list envelopes (§4 conventions, §8 page size)', () => {
    // limit 1–100 default 50 on these lists
    const bounded: [string, string][] = [
      ['/v1/admin/contacts', 'contacts'],
      ['/v1/admin/journeys', 'journeys'],
      ['/v1/admin/journeys/welcome-series/states', 'states'],
      ['/v1/admin/events', 'events'],
      ['/v1/admin/emails', 'emails'],
    ];
    // bounds not documented, default 50
    const defaulted: [string, string][] = [
      ['/v1/admin/audit-logs', 'logs'],
      ['/v1/admin/api-keys', 'keys'],
      ['/v1/admin/alerts/history', 'alerts'],
      ['/v1/admin/dlq', 'entries'],
    ];

    it.each([...bounded, ...defaulted])('GET %s → {%s, total, limit: 50, offset: 0}', async (path, plural) => {
      const response = await get(path);
      expect(response.status).toBe(200);
      expect(keysOf(response.body)).toEqual(sorted([plural, 'total', 'limit', 'offset']));
      expect(response.body).toMatchObject({ [plural]: expect.any(Array), total: expect.any(Number), limit: 50, offset: 0 });
      const page = await get(`${path}?limit=1&offset=1`);
      expect(page.body).toMatchObject({ limit: 1, offset: 1 });
    });

    it.each(bounded)('GET %s rejects limit 0, 101, 1.5, abc and offset -1 with 400 {error}', async (path) => {
      for (const query of ['limit=0', 'limit=101', 'limit=1.5', 'limit=abc', 'offset=-1', 'limit=1&limit=2']) {
        expectError(await get(`${path}?${query}`), 400);
      }
      expect((await get(`${path}?limit=100`)).status).toBe(200);
    });

    it('GET /v1/admin/alerts/rules is {rules} without pagination', async () => {
      const rules = await get('/v1/admin/alerts/rules');
      expect(keysOf(rules.body)).toEqual(['rules']);
    });
  });

  it('contacts: exact Contact and preferences fields; {contact, preferences}, {contact}, bare PATCH/PUT bodies', async () => {
    const externalId = `conf-${randomUUID()}`;
    const created = await api.request('POST', '/v1/admin/contacts', { token: keys.journeyAdmin, body: { externalId, email: `${externalId}@example.com` } });
    expect(created.status).toBe(201);
    expect(keysOf(created.body)).toEqual(['contact']);
    expect(keysOf(created.body.contact)).toEqual(sorted(CONTACT));

    const detail = await get(`/v1/admin/contacts/${externalId}`);
    expect(keysOf(detail.body)).toEqual(['contact', 'preferences']);
    expect(detail.body.preferences).toBeNull();

    const patched = await api.request('PATCH', `/v1/admin/contacts/${created.body.contact.id}`, {
      token: keys.journeyAdmin,
      body: { properties: { plan: 'pro' } },
    });
    expect(patched.status).toBe(200);
    expect(keysOf(patched.body)).toEqual(sorted(CONTACT));

    const put = await api.request('PUT', `/v1/admin/contacts/${externalId}/preferences`, {
      token: keys.journeyAdmin,
      body: { categories: { journey: false } },
    });
    expect(put.status).toBe(200);
    expect(keysOf(put.body)).toEqual(sorted(PREFERENCES));
    const prefs = await get(`/v1/admin/contacts/${externalId}/preferences`);
    expect(keysOf(prefs.body)).toEqual(['preferences']);
    expect(keysOf(prefs.body.preferences)).toEqual(sorted(PREFERENCES));
    expect(keysOf((await get(`/v1/admin/contacts/${externalId}`)).body.preferences)).toEqual(sorted(PREFERENCES));

    expectError(await api.request('POST', '/v1/admin/contacts', { token: LEGACY, body: { externalId } }), 409, 'Contact with this externalId already exists');
    expectError(await api.request('PATCH', `/v1/admin/contacts/${randomUUID()}`, { token: LEGACY, body: {} }), 404, 'Contact not found');
    expectError(await get(`/v1/admin/contacts/nobody-${randomUUID()}/timeline`), 404, 'Contact not found');

    const deleted = await api.request('DELETE', `/v1/admin/contacts/${externalId}`, { token: keys.journeyAdmin });
    expect(deleted).toMatchObject({ status: 200, body: { deleted: true } });
    expect(keysOf(deleted.body)).toEqual(['deleted']);
  });

  it('contacts: an externalId of up to 512 characters (allowed on create) can be addressed as {id}', async () => {
    const externalId = `long-${randomUUID()}-${'x'.repeat(400)}`;
    expect((await api.request('POST', '/v1/admin/contacts', { token: LEGACY, body: { externalId } })).status).toBe(201);
    const found = await get(`/v1/admin/contacts/${externalId}`);
    expect(found.status).toBe(200);
    expect(found.body.contact.externalId).toBe(externalId);
    expect((await get(`/v1/admin/contacts/${externalId}/timeline`)).status).toBe(200);
    expect((await api.request('DELETE', `/v1/admin/contacts/${externalId}`, { token: LEGACY })).status).toBe(200);
  });

  it('timeline entries are {type, timestamp, data} with the §2 data fields', async () => {
    const userId = `conf-tl-${randomUUID()}`;
    const ingested = await api.request('POST', '/v1/events', {
      token: keys.ingest,
      body: { name: 'conf.seen', userId, email: `${userId}@example.com`, eventProperties: { n: 1 } },
    });
    expect(ingested.status).toBe(202);
    expect(keysOf(ingested.body)).toEqual(['exits', 'stored']);
    const timeline = await get(`/v1/admin/contacts/${userId}/timeline`);
    expect(keysOf(timeline.body)).toEqual(sorted(['timeline', 'total', 'limit', 'offset']));
    expect(timeline.body).toMatchObject({ total: 1, limit: 50, offset: 0 });
    const [entry] = timeline.body.timeline;
    expect(keysOf(entry)).toEqual(['data', 'timestamp', 'type']);
    expect(entry.type).toBe('event');
    expect(keysOf(entry.data)).toEqual(sorted(['id', 'event', 'properties']));
    for (const query of ['limit=0', 'limit=101', 'type=bogus']) expectError(await get(`/v1/admin/contacts/${userId}/timeline?${query}`), 400);

    const events = await get(`/v1/admin/events?userId=${userId}`);
    expect(events.body.total).toBe(1);
    expect(keysOf(events.body.events[0])).toEqual(sorted(EVENT));
    const one = await get(`/v1/admin/events/${events.body.events[0].id}`);
    expect(keysOf(one.body)).toEqual(['event']);
    expect(keysOf(one.body.event)).toEqual(sorted(EVENT));
  });

  it('journeys: state and log fields, {state, logs}, cancel shape and its 409 message', async () => {
    const userId = `conf-j-${randomUUID()}`;
    const enrolled = await api.request('POST', '/v1/admin/journeys/welcome-series/enroll', {
      token: keys.journeyAdmin,
      body: { userId, userEmail: `${userId}@example.com` },
    });
    expect(enrolled.status).toBe(202);
    expect(enrolled.body).toEqual({ enrolled: true, event: expect.any(String), userId });

    const states = await eventually(
      () => get(`/v1/admin/journeys/welcome-series/states?userId=${userId}`),
      (response) => response.body.total === 1,
    );
    expect(keysOf(states.body)).toEqual(sorted(['states', 'total', 'limit', 'offset']));
    const [state] = states.body.states;
    // the documented fields are all there (workflowId is an additive field used to find the run)
    expect(keysOf(state)).toEqual(expect.arrayContaining(JOURNEY_STATE));

    const one = await get(`/v1/admin/journeys/welcome-series/states/${state.id}`);
    expect(keysOf(one.body)).toEqual(['logs', 'state']);
    expect(one.body.logs.length).toBeGreaterThan(0);
    for (const log of one.body.logs) expect(keysOf(log)).toEqual(sorted(JOURNEY_LOG));
    expect(keysOf((await get(`/v1/admin/journey-logs/${state.id}`)).body)).toEqual(['logs', 'state']);
    // a state belongs to its journey only
    expectError(await get(`/v1/admin/journeys/trial-conversion/states/${state.id}`), 404);

    const detail = await get('/v1/admin/journeys/welcome-series');
    expect(keysOf(detail.body)).toEqual(['journey']);
    expect(detail.body.journey.recentStates.length).toBeLessThanOrEqual(10);
    expect(keysOf(detail.body.journey.recentStates[0])).toEqual(expect.arrayContaining(JOURNEY_STATE));

    const cancelled = await api.request('DELETE', `/v1/admin/journeys/welcome-series/states/${state.id}`, { token: keys.journeyAdmin });
    expect(cancelled.status).toBe(200);
    expect(keysOf(cancelled.body)).toEqual(['state', 'workflowCancelled']);
    expect(keysOf(cancelled.body.state)).toEqual(['exitedAt', 'id', 'status']);
    expect(cancelled.body.state).toMatchObject({ id: state.id, status: 'exited' });
    expectError(
      await api.request('DELETE', `/v1/admin/journeys/welcome-series/states/${state.id}`, { token: keys.journeyAdmin }),
      409,
      "Cannot cancel journey in 'exited' status",
    );

    const patched = await api.request('PATCH', '/v1/admin/journeys/welcome-series', { token: keys.journeyAdmin, body: { enabled: true } });
    expect(keysOf(patched.body)).toEqual(['journey']);
    expect(keysOf(patched.body.journey)).toEqual(sorted(['id', 'name', 'enabled', 'updatedAt']));

    const batch = await api.request('POST', '/v1/admin/journeys/welcome-series/enroll/batch', {
      token: LEGACY,
      body: { users: [{ userId, userEmail: `${userId}@example.com` }] },
    });
    expect(batch.status).toBe(200);
    expect(keysOf(batch.body)).toEqual(sorted(['enrolled', 'skipped', 'results']));
    expect(keysOf(batch.body.results[0])).toEqual(['enrolled', 'userId']);
    const tooMany = Array.from({ length: 501 }, (_, i) => ({ userId: `${userId}-${i}`, userEmail: `u${i}@example.com` }));
    expectError(await api.request('POST', '/v1/admin/journeys/welcome-series/enroll/batch', { token: LEGACY, body: { users: tooMany } }), 400);
  });

  it('api keys, audit log, alert rules, DLQ and import jobs have exactly their §2 fields', async () => {
    const created = await api.request('POST', '/v1/admin/api-keys', { token: LEGACY, body: { name: `conf-${randomUUID()}`, scopes: ['read'] } });
    expect(created.status).toBe(201);
    expect(keysOf(created.body)).toEqual(sorted(['id', 'name', 'key', 'keyPrefix', 'scopes', 'expiresAt', 'createdAt']));
    const listed = await get('/v1/admin/api-keys?limit=100');
    expect(keysOf(listed.body.keys.find((key: { id: string }) => key.id === created.body.id))).toEqual(sorted(API_KEY));
    const revoked = await api.request('DELETE', `/v1/admin/api-keys/${created.body.id}`, { token: LEGACY });
    expect(revoked).toMatchObject({ status: 200, body: { revoked: true } });
    expect(keysOf(revoked.body)).toEqual(['revoked']);

    const audit = await get('/v1/admin/audit-logs?resource=api-key&action=revoke');
    expect(keysOf(audit.body.logs[0])).toEqual(sorted(AUDIT_ENTRY));
    expect(audit.body.logs[0]).toMatchObject({ actor: 'legacy', actorKeyId: null, resourceId: created.body.id });

    const rule = await api.request('POST', '/v1/admin/alerts/rules', {
      token: LEGACY,
      body: { name: 'conf', type: 'high_complaint_rate', threshold: 0.01, channel: 'email', channelConfig: { to: 'ops@example.com' } },
    });
    expect(rule.status).toBe(201);
    expect(keysOf(rule.body)).toEqual(sorted(ALERT_RULE));
    const patched = await api.request('PATCH', `/v1/admin/alerts/rules/${rule.body.id}`, { token: LEGACY, body: { threshold: 0.02 } });
    expect(keysOf(patched.body)).toEqual(sorted(ALERT_RULE));
    const deleted = await api.request('DELETE', `/v1/admin/alerts/rules/${rule.body.id}`, { token: LEGACY });
    expect(deleted.body).toEqual({ deleted: true });

    const dlqId = await recordDeadLetter(api.deps.db, { source: 'email', sourceId: null, payload: {}, error: 'conf' });
    const dlq = await get('/v1/admin/dlq?source=email&status=pending&limit=100');
    expect(keysOf(dlq.body.entries.find((entry: { id: string }) => entry.id === dlqId))).toEqual(sorted(DLQ_ENTRY));
    expect((await api.request('DELETE', `/v1/admin/dlq/${dlqId}`, { token: LEGACY })).body).toEqual({ id: dlqId, status: 'discarded' });

    const job = await api.request('POST', '/v1/admin/contacts/import', {
      token: LEGACY,
      body: { format: 'json', data: JSON.stringify([{ externalId: `conf-imp-${randomUUID()}` }]) },
    });
    expect(job.status).toBe(202);
    expect(job.body).toEqual({ jobId: expect.any(String), status: 'pending' });
    const progress = await get(`/v1/admin/contacts/import/${job.body.jobId}`);
    expect(keysOf(progress.body)).toEqual(sorted(IMPORT_JOB));
  });

  describe('bad input is a 4xx {error}, never a 500 (§7)', () => {
    const id = randomUUID();
    const nul = 'a\u0000b';
    const cases: [string, string, unknown, number][] = [
      // malformed UUIDs in path parameters
      ['GET', '/v1/admin/events/not-a-uuid', undefined, 400],
      ['GET', '/v1/admin/emails/not-a-uuid', undefined, 400],
      ['GET', '/v1/admin/journeys/welcome-series/states/not-a-uuid', undefined, 400],
      ['DELETE', '/v1/admin/journeys/welcome-series/states/not-a-uuid', undefined, 400],
      ['GET', '/v1/admin/journey-logs/not-a-uuid', undefined, 400],
      ['DELETE', '/v1/admin/api-keys/not-a-uuid', undefined, 400],
      ['PATCH', '/v1/admin/alerts/rules/not-a-uuid', {}, 400],
      ['DELETE', '/v1/admin/alerts/rules/not-a-uuid', undefined, 400],
      ['POST', '/v1/admin/dlq/not-a-uuid/retry', undefined, 400],
      ['DELETE', '/v1/admin/dlq/not-a-uuid', undefined, 400],
      ['GET', '/v1/admin/contacts/import/not-a-uuid', undefined, 400],
      // well-formed but unknown ids
      ['GET', `/v1/admin/events/${id}`, undefined, 404],
      ['GET', `/v1/admin/emails/${id}`, undefined, 404],
      ['GET', `/v1/admin/journey-logs/${id}`, undefined, 404],
      ['GET', '/v1/admin/journeys/no-such-journey/states', undefined, 404],
      ['POST', '/v1/admin/journeys/no-such-journey/enroll', { userId: 'u', userEmail: 'u@example.com' }, 404],
      ['PATCH', `/v1/admin/alerts/rules/${id}`, {}, 404],
      ['POST', `/v1/admin/dlq/${id}/retry`, undefined, 404],
      ['DELETE', `/v1/admin/dlq/${id}`, undefined, 404],
      ['GET', `/v1/admin/contacts/import/${id}`, undefined, 404],
      // wrong types, missing fields, bodies that are not objects
      ['POST', '/v1/admin/contacts', { externalId: 5 }, 400],
      ['POST', '/v1/admin/contacts', { externalId: '' }, 400],
      ['POST', '/v1/admin/contacts', [], 400],
      ['POST', '/v1/admin/contacts', 'null', 400],
      ['POST', '/v1/admin/contacts', '{not json', 400],
      ['POST', '/v1/admin/contacts', undefined, 400],
      ['PATCH', `/v1/admin/contacts/${id}`, { properties: 'x' }, 400],
      ['PUT', `/v1/admin/contacts/${id}/preferences`, { categories: { journey: 'yes' } }, 400],
      ['PATCH', '/v1/admin/journeys/welcome-series', { enabled: 'false' }, 400],
      ['PATCH', '/v1/admin/journeys/welcome-series', {}, 400],
      ['POST', '/v1/admin/journeys/welcome-series/enroll', { userId: 'u' }, 400],
      ['POST', '/v1/admin/journeys/welcome-series/enroll/batch', { users: 'x' }, 400],
      ['POST', '/v1/admin/events/replay', {}, 400],
      ['POST', '/v1/admin/events/replay', { eventIds: ['x'] }, 400],
      ['POST', '/v1/admin/api-keys', { name: 'x', scopes: ['root'] }, 400],
      ['POST', '/v1/admin/api-keys', { name: 'x', scopes: ['read'], expiresAt: 'soon' }, 400],
      ['POST', '/v1/admin/alerts/rules', { name: 'x' }, 400],
      ['POST', '/v1/admin/contacts/import', { format: 'xml', data: 'x' }, 400],
      ['POST', '/v1/admin/suppressions/import', { rows: 'x' }, 400],
      ['POST', '/v1/events', { name: 'x' }, 400],
      ['POST', '/v1/events', { name: 'x', userId: 'u', timestamp: 'now' }, 400],
      // unknown query values
      ['GET', '/v1/admin/journeys?enabled=yes', undefined, 400],
      ['GET', '/v1/admin/journeys/welcome-series/states?status=bogus', undefined, 400],
      ['GET', '/v1/admin/emails?status=bogus', undefined, 400],
      ['GET', '/v1/admin/events?from=yesterday', undefined, 400],
      ['GET', '/v1/admin/api-keys?includeRevoked=maybe', undefined, 400],
      ['GET', '/v1/admin/audit-logs?resource=bogus', undefined, 400],
      ['GET', '/v1/admin/alerts/history?ruleId=bogus', undefined, 400],
      ['GET', '/v1/admin/dlq?status=bogus', undefined, 400],
      ['GET', '/v1/admin/contacts/export?format=xml', undefined, 400],
      ['GET', '/v1/admin/contacts/export?limit=10001', undefined, 400],
      // text PostgreSQL cannot store (NUL), in paths, queries and bodies
      ['GET', `/v1/admin/contacts/${encodeURIComponent(nul)}`, undefined, 400],
      ['GET', `/v1/admin/contacts/${encodeURIComponent(nul)}/timeline`, undefined, 400],
      ['GET', `/v1/admin/contacts/${encodeURIComponent(nul)}/preferences`, undefined, 400],
      ['DELETE', `/v1/admin/contacts/${encodeURIComponent(nul)}`, undefined, 400],
      ['GET', `/v1/admin/contacts?search=${encodeURIComponent(nul)}`, undefined, 400],
      ['GET', `/v1/admin/contacts/export?search=${encodeURIComponent(nul)}`, undefined, 400],
      ['GET', `/v1/admin/events?userId=${encodeURIComponent(nul)}`, undefined, 400],
      ['GET', `/v1/admin/emails?toEmail=${encodeURIComponent(nul)}`, undefined, 400],
      ['GET', `/v1/admin/audit-logs?actor=${encodeURIComponent(nul)}`, undefined, 400],
      ['GET', `/v1/admin/dlq?source=${encodeURIComponent(nul)}`, undefined, 400],
      ['GET', `/v1/admin/journeys/welcome-series/states?userId=${encodeURIComponent(nul)}`, undefined, 400],
      ['POST', '/v1/admin/contacts', { externalId: nul }, 400],
      ['POST', '/v1/admin/contacts', { externalId: `conf-${id}`, properties: { note: nul } }, 400],
      ['POST', '/v1/admin/journeys/welcome-series/enroll', { userId: nul, userEmail: 'u@example.com' }, 400],
      ['POST', '/v1/admin/events/replay', { filter: { userId: nul } }, 400],
      ['POST', '/v1/admin/api-keys', { name: nul, scopes: ['read'] }, 400],
      [
        'POST',
        '/v1/admin/alerts/rules',
        { name: nul, type: 'delivery_issue', threshold: 0.9, channel: 'email', channelConfig: { to: 'ops@example.com' } },
        400,
      ],
      ['POST', '/v1/events', { name: nul, userId: 'u' }, 400],
      ['POST', '/v1/events', { name: 'x', userId: 'u', eventProperties: { note: nul } }, 400],
      ['POST', '/v1/contacts', { userId: nul }, 400],
      // router-level rejections
      ['GET', '/v1/admin/contacts/%E0%A4%A', undefined, 400],
      // past the schema's 512 characters the route answers 400 naming the parameter; past the router's limit, 414
      ['GET', `/v1/admin/contacts/${'x'.repeat(600)}`, undefined, 400],
      ['GET', `/v1/admin/contacts/${'x'.repeat(5000)}`, undefined, 414],
    ];

    it.each(cases)('%s %s %j → %i {error}', async (method, path, body, status) => {
      expectError(await api.request(method, path, { token: LEGACY, body }), status);
    });

    it('an over-long Idempotency-Key header is a 400, not a 500', async () => {
      const response = await api.request('POST', '/v1/events', {
        token: keys.ingest,
        body: { name: 'conf.key', userId: 'u' },
        headers: { 'idempotency-key': 'k'.repeat(300) },
      });
      expectError(response, 400);
    });

    it('a body nested thousands of levels deep is a 400; ordinary nesting is accepted', async () => {
      const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
      const contact = (depth: number) => `{"externalId":"conf-deep-${randomUUID()}","properties":${nested(depth)}}`;
      expectError(await api.request('POST', '/v1/admin/contacts', { token: LEGACY, body: contact(5000) }), 400);
      expectError(
        await api.request('POST', '/v1/events', { token: keys.ingest, body: `{"name":"conf.deep","userId":"u","eventProperties":${nested(5000)}}` }),
        400,
      );
      expect((await api.request('POST', '/v1/admin/contacts', { token: LEGACY, body: contact(50) })).status).toBe(201);
    });

    it('a JSON route answers a non-JSON content type with a 4xx {error}', async () => {
      const response = await fetch(`${api.url}/v1/admin/contacts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${LEGACY}`, 'content-type': 'application/xml' },
        body: '<contact/>',
      });
      expect(response.status).toBe(415);
      expect(await response.json()).toEqual({ error: expect.any(String) });
    });
  });
});
