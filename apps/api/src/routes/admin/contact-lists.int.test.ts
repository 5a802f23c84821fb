import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../../../../../test/test-api';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

describe('/v1/admin/contacts/{id}/lists', () => {
  let api: TestApi;
  const keys: Record<string, string> = {};
  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY });
    for (const [name, scopes] of Object.entries({ read: ['read'], journeyAdmin: ['journey-admin'], ingest: ['ingest'] })) {
      const created = await api.request('POST', '/v1/admin/api-keys', { token: LEGACY, body: { name: `contact-lists-${name}`, scopes } });
      keys[name] = created.body.key;
    }
  });
  afterAll(() => api.close());

  async function contactWithLists(lists: Record<string, boolean>): Promise<{ externalId: string; id: string }> {
    const externalId = `lists-${randomUUID()}`;
    const ingested = await api.request('POST', '/v1/events', { token: keys.ingest, body: { name: 'profile.updated', userId: externalId, lists } });
    expect(ingested.status).toBe(202);
    const contact = await api.request('GET', `/v1/admin/contacts/${externalId}`, { token: LEGACY });
    return { externalId, id: contact.body.contact.id };
  }

  const auditRows = (contactId: string) =>
    api.deps.db.selectFrom('auditLogs').select(['action', 'resource', 'detail']).where('resourceId', '=', contactId).orderBy('createdAt').execute();

  it('reads the memberships the data plane wrote, by UUID or externalId, with the read scope', async () => {
    const news = `news-${randomUUID()}`;
    const beta = `beta-${randomUUID()}`;
    const contact = await contactWithLists({ [news]: true, [beta]: false });
    for (const id of [contact.id, encodeURIComponent(contact.externalId)]) {
      const read = await api.request('GET', `/v1/admin/contacts/${id}/lists`, { token: keys.read });
      expect(read.status).toBe(200);
      expect(read.body.contactId).toBe(contact.id);
      expect(read.body.lists.map((list: { key: string; subscribed: boolean }) => [list.key, list.subscribed]).sort()).toEqual(
        [
          [beta, false],
          [news, true],
        ].sort(),
      );
    }
    const all = await api.request('GET', '/v1/admin/lists', { token: keys.read });
    expect(all.status).toBe(200);
    expect(all.body.lists.find((list: { key: string }) => list.key === news)).toMatchObject({ name: news, subscribers: 1 });
  });

  it('adds, opts out and removes a membership with journey-admin, each change audited on the contact', async () => {
    const contact = await contactWithLists({});
    const key = `digest-${randomUUID()}`;
    const added = await api.request('PUT', `/v1/admin/contacts/${contact.externalId}/lists/${key}`, { token: keys.journeyAdmin, body: { subscribed: true } });
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({ contactId: contact.id, membership: { key, name: key, description: null, subscribed: true } });

    const optedOut = await api.request('PUT', `/v1/admin/contacts/${contact.id}/lists/${key}`, { token: keys.journeyAdmin, body: { subscribed: false } });
    expect(optedOut.body.membership.subscribed).toBe(false);
    const listed = await api.request('GET', `/v1/admin/contacts/${contact.id}/lists`, { token: keys.read });
    expect(listed.body.lists).toEqual([expect.objectContaining({ key, subscribed: false })]);

    const removed = await api.request('DELETE', `/v1/admin/contacts/${contact.id}/lists/${key}`, { token: keys.journeyAdmin });
    expect(removed).toMatchObject({ status: 200, body: { removed: true } });
    expect((await api.request('GET', `/v1/admin/contacts/${contact.id}/lists`, { token: keys.read })).body.lists).toEqual([]);
    // the list itself stays: removing a member never deletes a list
    expect((await api.request('GET', '/v1/admin/lists', { token: keys.read })).body.lists.some((list: { key: string }) => list.key === key)).toBe(true);

    expect(await auditRows(contact.id)).toEqual([
      { action: 'update', resource: 'contact', detail: { list: key, subscribed: true } },
      { action: 'update', resource: 'contact', detail: { list: key, subscribed: false } },
      { action: 'update', resource: 'contact', detail: { list: key, removed: true } },
    ]);
  });

  it('answers 404 for an unknown contact or membership, 400 for a bad key or body, 403 below journey-admin', async () => {
    const contact = await contactWithLists({});
    const missing = `missing-${randomUUID()}`;
    expect(await api.request('GET', `/v1/admin/contacts/${missing}/lists`, { token: keys.read })).toMatchObject({
      status: 404,
      body: { error: 'Contact not found' },
    });
    expect(await api.request('PUT', `/v1/admin/contacts/${missing}/lists/news`, { token: keys.journeyAdmin, body: { subscribed: true } })).toMatchObject({
      status: 404,
      body: { error: 'Contact not found' },
    });
    expect(await api.request('DELETE', `/v1/admin/contacts/${contact.id}/lists/never-joined`, { token: keys.journeyAdmin })).toMatchObject({
      status: 404,
      body: { error: 'List membership not found' },
    });
    const badKey = await api.request('PUT', `/v1/admin/contacts/${contact.id}/lists/${encodeURIComponent('two words')}`, {
      token: keys.journeyAdmin,
      body: { subscribed: true },
    });
    expect(badKey.status).toBe(400);
    expect(badKey.body.error).toMatch(/listKey/);
    const badBody = await api.request('PUT', `/v1/admin/contacts/${contact.id}/lists/news`, { token: keys.journeyAdmin, body: { subscribed: 'yes' } });
    expect(badBody.status).toBe(400);
    expect(await api.request('PUT', `/v1/admin/contacts/${contact.id}/lists/news`, { token: keys.read, body: { subscribed: true } })).toMatchObject({
      status: 403,
      body: { error: 'Insufficient scope' },
    });
    expect((await api.request('DELETE', `/v1/admin/contacts/${contact.id}/lists/news`, { token: keys.read })).status).toBe(403);
    expect((await api.request('GET', `/v1/admin/contacts/${contact.id}/lists`, { token: keys.ingest })).status).toBe(403);
    expect(await auditRows(contact.id)).toEqual([]);
  });
});
