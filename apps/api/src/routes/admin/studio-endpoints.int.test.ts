import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey, startTestApi, type TestApi } from '../../../../../test/test-api';

const LEGACY = `studio-endpoints-legacy-${randomUUID()}`;

/** The admin endpoints the studio added: templates, a send's rendering, activity series, funnels, status. */
describe('studio endpoints', () => {
  let api: TestApi;
  let readKey: string;

  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY, TEMPORAL_UI_URL: 'http://temporal-ui.example:8233/' });
    readKey = await issueApiKey(api, LEGACY, `studio-read-${randomUUID()}`, ['read']);
  });
  afterAll(async () => api?.close());

  it('lists templates and renders one with given data; bad data is a 400 naming the field', async () => {
    const list = await api.request('GET', '/v1/admin/templates', { token: readKey });
    expect(list.status).toBe(200);
    expect(list.body.templates.map((template: { key: string }) => template.key)).toContain('welcome');

    const rendered = await api.request('POST', '/v1/admin/templates/welcome/render', { token: readKey, body: { data: { firstName: 'Grace' } } });
    expect(rendered.status).toBe(200);
    expect(rendered.body.subject).toContain('Grace');
    expect(rendered.body.html).not.toContain('/v1/t/o/');

    const bad = await api.request('POST', '/v1/admin/templates/welcome/render', { token: readKey, body: { data: { firstName: 42 } } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('firstName');
    expect((await api.request('POST', '/v1/admin/templates/nope/render', { token: readKey, body: {} })).status).toBe(404);
  });

  it('sends a test only with journey-admin, and shows a send rebuilt without tracking', async () => {
    const to = `studio-${randomUUID()}@waymark-test.example`;
    expect((await api.request('POST', '/v1/admin/templates/welcome/send-test', { token: readKey, body: { to } })).status).toBe(403);
    const sent = await api.request('POST', '/v1/admin/templates/welcome/send-test', { token: LEGACY, body: { to, data: { firstName: 'Ada' } } });
    expect(sent).toMatchObject({ status: 202, body: { status: 'sent' } });

    const rendered = await api.request('GET', `/v1/admin/emails/${sent.body.emailSendId}/rendered`, { token: readKey });
    expect(rendered.status).toBe(200);
    expect(rendered.body.headers).toMatchObject({ To: to });
    expect(rendered.body.html).toContain('Ada');
    expect(rendered.body.html).not.toContain('/v1/t/');
    expect((await api.request('GET', `/v1/admin/emails/${randomUUID()}/rendered`, { token: readKey })).status).toBe(404);

    // a send's content is for the admin plane: no credential is 401, a data-plane key 403
    const path = `/v1/admin/emails/${sent.body.emailSendId}/rendered`;
    expect((await api.request('GET', path)).status).toBe(401);
    const ingestKey = await issueApiKey(api, LEGACY, `studio-ingest-${randomUUID()}`, ['ingest']);
    expect((await api.request('GET', path, { token: ingestKey })).status).toBe(403);
  });

  it('answers 404 for a send whose recipient was erased: the data it was rendered from went with them', async () => {
    const userId = `rendered-erased-${randomUUID()}`;
    const to = `${userId}@waymark-test.example`;
    await api.request('POST', '/v1/contacts', { token: LEGACY, body: { userId, email: to } });
    const sent = await api.request('POST', '/v1/emails', {
      token: LEGACY,
      headers: { 'idempotency-key': randomUUID() },
      body: { templateKey: 'welcome', to, userId, data: { firstName: 'Ada' } },
    });
    expect(sent.status).toBe(202);
    const path = `/v1/admin/emails/${sent.body.emailSendId}/rendered`;
    expect((await api.request('GET', path, { token: readKey })).body.html).toContain('Ada');
    expect((await api.request('DELETE', `/v1/contacts/${userId}`, { token: LEGACY })).status).toBe(200);
    expect(await api.request('GET', path, { token: readKey })).toMatchObject({ status: 404, body: { error: expect.stringContaining('recipient was erased') } });
  });

  it('answers the activity series, a journey funnel, the Temporal UI link and the zero-users status', async () => {
    const userId = `funnel-${randomUUID()}`;
    await api.request('POST', '/v1/events', { token: LEGACY, body: { name: 'studio.activity', userId } });
    const activity = await api.request('GET', '/v1/admin/metrics/activity?hours=2&days=1', { token: readKey });
    expect(activity.status).toBe(200);
    expect(activity.body.eventsPerHour.reduce((sum: number, row: { count: number }) => sum + row.count, 0)).toBeGreaterThan(0);
    expect((await api.request('GET', '/v1/admin/metrics/activity?hours=999', { token: readKey })).status).toBe(400);

    const funnel = await api.request('GET', '/v1/admin/journeys/welcome-series/funnel', { token: readKey });
    expect(funnel.status).toBe(200);
    expect(Array.isArray(funnel.body.steps)).toBe(true);
    expect((await api.request('GET', '/v1/admin/journeys/no-such-journey/funnel', { token: readKey })).status).toBe(404);

    expect((await api.request('GET', '/v1/admin/studio-links', { token: readKey })).body).toEqual({
      temporalUiUrl: 'http://temporal-ui.example:8233',
      temporalNamespace: 'default',
    });
    const status = await api.request('GET', '/v1/studio/status');
    expect(status.status).toBe(200);
    expect(typeof status.body.hasUsers).toBe('boolean');
  });
});
