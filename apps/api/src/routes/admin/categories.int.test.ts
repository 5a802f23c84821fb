import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../../../../../test/test-api';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

describe('preference categories (journeys/categories.ts)', () => {
  let api: TestApi;
  let readKey: string;
  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY });
    readKey = (await api.request('POST', '/v1/admin/api-keys', { token: LEGACY, body: { name: 'categories-read', scopes: ['read'] } })).body.key;
  });
  afterAll(() => api.close());

  it('GET /v1/admin/categories lists every declared category, with the read scope', async () => {
    const answer = await api.request('GET', '/v1/admin/categories', { token: readKey });
    expect(answer.status).toBe(200);
    expect(answer.body.categories.map((category: { key: string }) => category.key)).toEqual(['journey', 'product-updates', 'newsletter', 'transactional']);
    expect(answer.body.categories[0]).toEqual({ key: 'journey', label: 'Journey & lifecycle emails', description: expect.any(String), required: false });
    expect(answer.body.categories.filter((category: { required: boolean }) => category.required).map((category: { key: string }) => category.key)).toEqual([
      'transactional',
    ]);
    expect((await api.request('GET', '/v1/admin/categories')).status).toBe(401);
  });

  it("a contact's preferences take declared categories only: 400 naming the others", async () => {
    const contact = await api.request('POST', '/v1/admin/contacts', {
      token: LEGACY,
      body: { externalId: `cat-${randomUUID()}`, email: `cat-${randomUUID()}@example.com` },
    });
    expect(contact.status).toBe(201);
    const path = `/v1/admin/contacts/${contact.body.contact.id}/preferences`;
    const refused = await api.request('PUT', path, { token: LEGACY, body: { categories: { newsletter: false, promotions: false, deals: true } } });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('Unknown preference category: promotions, deals (known: journey, product-updates, newsletter, transactional)');
    // nothing was stored by the refused call
    expect((await api.request('GET', path, { token: LEGACY })).status).toBe(404);
    const stored = await api.request('PUT', path, { token: LEGACY, body: { categories: { newsletter: false, 'product-updates': true } } });
    expect(stored.status).toBe(200);
    expect(stored.body.categories).toEqual({ newsletter: false, 'product-updates': true });
    // a required category (emails the person asked for) cannot be turned off: 400 naming it, nothing stored
    const required = await api.request('PUT', path, { token: LEGACY, body: { unsubscribedAll: true, categories: { transactional: false } } });
    expect(required.status).toBe(400);
    expect(required.body.error).toBe(
      'Required preference category cannot be turned off: transactional (emails the person asked for, sent whatever their opt-outs)',
    );
    expect((await api.request('GET', path, { token: LEGACY })).body.preferences).toMatchObject({ unsubscribedAll: false, categories: { newsletter: false } });
  });
});
