import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../../../../../test/test-api';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

describe('/v1/admin/contacts and timeline', () => {
  let api: TestApi;
  const keys: Record<string, string> = {};
  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY });
    for (const [name, scopes] of Object.entries({ read: ['read'], journeyAdmin: ['journey-admin'], ingest: ['ingest'] })) {
      const created = await api.request('POST', '/v1/admin/api-keys', { token: LEGACY, body: { name: `contacts-${name}`, scopes } });
      keys[name] = created.body.key;
    }
  });
  afterAll(() => api.close());

  const create = (body: unknown, token = LEGACY) => api.request('POST', '/v1/admin/contacts', { token, body });

  it('creates, reads by UUID and by externalId, and 409s a duplicate externalId', async () => {
    const externalId = `user-${randomUUID()}`;
    const created = await create({ externalId, email: 'Ann@Example.com', properties: { plan: 'pro', first_name: 'Ann' } });
    expect(created.status).toBe(201);
    expect(created.body.contact).toMatchObject({ externalId, email: 'Ann@Example.com', properties: { plan: 'pro', first_name: 'Ann' } });
    const byId = await api.request('GET', `/v1/admin/contacts/${created.body.contact.id}`, { token: keys.read });
    expect(byId.status).toBe(200);
    expect(byId.body).toEqual({ contact: created.body.contact, preferences: null });
    const byExternal = await api.request('GET', `/v1/admin/contacts/${encodeURIComponent(externalId)}`, { token: keys.read });
    expect(byExternal.body.contact.id).toBe(created.body.contact.id);
    expect(await create({ externalId })).toMatchObject({ status: 409, body: { error: 'Contact with this externalId already exists' } });
  });

  it('returns preferences with the contact when a row exists', async () => {
    const externalId = `pref-${randomUUID()}`;
    await create({ externalId, email: 'pref@example.com' });
    await api.deps.db
      .insertInto('emailPreferences')
      .values({ userId: externalId, email: 'pref@example.com', categories: JSON.stringify({ journey: false }) })
      .execute();
    const detail = await api.request('GET', `/v1/admin/contacts/${externalId}`, { token: LEGACY });
    expect(detail.body.preferences).toMatchObject({
      userId: externalId,
      email: 'pref@example.com',
      unsubscribedAll: false,
      suppressed: false,
      bounceCount: 0,
      categories: { journey: false },
      suppressedAt: null,
    });
  });

  it('PATCH deep-merges properties, null removes a key, email replaces', async () => {
    const externalId = `patch-${randomUUID()}`;
    await create({ externalId, properties: { plan: 'free', address: { city: 'Oslo', zip: '0150' }, legacy: true } });
    const patched = await api.request('PATCH', `/v1/admin/contacts/${externalId}`, {
      token: keys.journeyAdmin,
      body: { email: 'new@example.com', properties: { address: { city: 'Bergen' }, legacy: null, score: 3 } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ email: 'new@example.com', properties: { plan: 'free', address: { city: 'Bergen', zip: '0150' }, score: 3 } });
    expect(patched.body.properties).not.toHaveProperty('legacy');
  });

  it('DELETE removes the contact and its preferences; later reads 404', async () => {
    const externalId = `del-${randomUUID()}`;
    const created = await create({ externalId, email: 'del@example.com' });
    await api.deps.db.insertInto('emailPreferences').values({ userId: externalId, email: 'del@example.com', categories: '{}' }).execute();
    expect(await api.request('DELETE', `/v1/admin/contacts/${created.body.contact.id}`, { token: LEGACY })).toMatchObject({
      status: 200,
      body: { deleted: true },
    });
    expect(await api.deps.db.selectFrom('emailPreferences').select('id').where('userId', '=', externalId).execute()).toEqual([]);
    expect(await api.request('GET', `/v1/admin/contacts/${externalId}`, { token: LEGACY })).toMatchObject({
      status: 404,
      body: { error: 'Contact not found' },
    });
    const audit = await api.request('GET', `/v1/admin/audit-logs?resource=contact&action=delete&limit=100`, { token: LEGACY });
    expect(audit.body.logs.some((log: { resourceId: string }) => log.resourceId === created.body.contact.id)).toBe(true);
  });

  it.each([
    ['GET', '/v1/admin/contacts/nobody-here'],
    ['PATCH', '/v1/admin/contacts/nobody-here'],
    ['DELETE', '/v1/admin/contacts/nobody-here'],
    ['GET', '/v1/admin/contacts/nobody-here/timeline'],
  ])('%s %s → 404 Contact not found', async (method, path) => {
    const response = await api.request(method, path, { token: LEGACY, ...(method === 'PATCH' ? { body: { properties: {} } } : {}) });
    expect(response).toMatchObject({ status: 404, body: { error: 'Contact not found' } });
  });

  it.each([
    ['missing externalId', { email: 'a@b.co' }],
    ['empty externalId', { externalId: '' }],
    ['invalid email', { externalId: 'x', email: 'not-an-email' }],
    ['properties not an object', { externalId: 'x', properties: [1, 2] }],
  ])('POST with %s → 400', async (_name, body) => {
    const response = await create(body);
    expect(response.status).toBe(400);
    expect(typeof response.body.error).toBe('string');
  });

  it('PATCH with an invalid email → 400; bad list queries → 400', async () => {
    expect((await api.request('PATCH', '/v1/admin/contacts/whoever', { token: LEGACY, body: { email: 'nope' } })).status).toBe(400);
    for (const query of ['limit=0', 'limit=101', 'offset=-1', 'limit=x']) {
      expect((await api.request('GET', `/v1/admin/contacts?${query}`, { token: LEGACY })).status).toBe(400);
    }
    expect((await api.request('GET', '/v1/admin/contacts/x/timeline?type=sms', { token: LEGACY })).status).toBe(400);
  });

  it('lists with case-insensitive search on email or externalId, newest lastSeenAt first, paginated', async () => {
    const tag = randomUUID().slice(0, 8);
    await create({ externalId: `S-${tag}-1`, email: `one.${tag}@example.com` });
    await create({ externalId: `s-${tag}-2` });
    await create({ externalId: `other-${randomUUID()}`, email: `ONE.${tag}@EXAMPLE.org` });
    await api.deps.db
      .updateTable('contacts')
      .set({ lastSeenAt: new Date(Date.now() + 60_000) })
      .where('externalId', '=', `s-${tag}-2`)
      .execute();
    const found = await api.request('GET', `/v1/admin/contacts?search=${tag.toUpperCase()}&limit=2`, { token: keys.read });
    expect(found.body).toMatchObject({ total: 3, limit: 2, offset: 0 });
    expect(found.body.contacts[0].externalId).toBe(`s-${tag}-2`);
    const byEmail = await api.request('GET', `/v1/admin/contacts?search=one.${tag}`, { token: keys.read });
    expect(byEmail.body.total).toBe(2);
    const wildcard = await api.request('GET', `/v1/admin/contacts?search=${encodeURIComponent('%')}`, { token: keys.read });
    expect(wildcard.status).toBe(200);
    expect(wildcard.body.total).toBe(0);
  });

  it('orders by lastSeenAt across and within minutes, read from the minute index; an update within the minute stays HOT', async () => {
    const tag = randomUUID().slice(0, 8);
    // far ahead of every other test's contacts, so these four are the first page
    const minute = new Date(Math.floor(Date.now() / 60_000) * 60_000 + 86_400_000);
    const seen = { a: 50_000, b: 10_000, c: 70_000, d: 30_000 }; // ms after `minute`: c and a in the next minute
    for (const [name, offset] of Object.entries(seen)) {
      await create({ externalId: `order-${tag}-${name}` });
      await api.deps.db
        .updateTable('contacts')
        .set({ lastSeenAt: new Date(minute.getTime() + offset) })
        .where('externalId', '=', `order-${tag}-${name}`)
        .execute();
    }
    const first = await api.request('GET', '/v1/admin/contacts?limit=4', { token: keys.read });
    expect(first.body.contacts.map((contact: { externalId: string }) => contact.externalId)).toEqual(
      ['c', 'a', 'd', 'b'].map((name) => `order-${tag}-${name}`),
    );
    const second = await api.request('GET', '/v1/admin/contacts?limit=2&offset=2', { token: keys.read });
    expect(second.body.contacts.map((contact: { externalId: string }) => contact.externalId)).toEqual([`order-${tag}-d`, `order-${tag}-b`]);

    // with sorting priced out, the plan shows whether an index gives this order; on a small or
    // freshly filled test table the planner may otherwise prefer a sort, which says nothing
    const plan = await api.deps.db.transaction().execute(async (trx) => {
      await sql`set local enable_sort = off`.execute(trx);
      return sql<{ 'QUERY PLAN': string }>`explain select * from contacts
        order by last_seen_minute desc, last_seen_at desc, id desc limit 50`.execute(trx);
    });
    expect(plan.rows.map((row) => row['QUERY PLAN']).join('\n')).toContain('contacts_last_seen_minute_idx');

    // what keeps ingest cheap (migration 0130): moving lastSeenAt within its minute changes no indexed column
    const hotUpdates = await api.deps.db.transaction().execute(async (trx) => {
      const move = (offset: number) =>
        trx
          .updateTable('contacts')
          .set({ lastSeenAt: new Date(minute.getTime() + offset) })
          .where('externalId', '=', `order-${tag}-b`)
          .execute();
      const hot = async () => Number((await sql<{ n: string }>`select pg_stat_get_xact_tuples_hot_updated('contacts'::regclass) as n`.execute(trx)).rows[0]!.n);
      const before = await hot();
      await move(11_000);
      await move(12_000);
      const sameMinute = (await hot()) - before;
      await move(130_000);
      return { sameMinute, nextMinute: (await hot()) - before - sameMinute };
    });
    expect(hotUpdates).toEqual({ sameMinute: 2, nextMinute: 0 });
  });

  it('scopes: read cannot mutate, ingest cannot read the admin plane', async () => {
    expect(await create({ externalId: 'x' }, keys.read)).toMatchObject({ status: 403, body: { error: 'Insufficient scope' } });
    expect((await api.request('DELETE', '/v1/admin/contacts/x', { token: keys.read })).status).toBe(403);
    expect((await api.request('PATCH', '/v1/admin/contacts/x', { token: keys.read, body: {} })).status).toBe(403);
    expect((await api.request('GET', '/v1/admin/contacts', { token: keys.ingest })).status).toBe(403);
    expect((await api.request('GET', '/v1/admin/contacts/x/timeline', { token: keys.ingest })).status).toBe(403);
    // and nothing without a credential
    expect((await api.request('POST', '/v1/admin/contacts', { body: { externalId: 'x' } })).status).toBe(401);
    expect((await api.request('DELETE', '/v1/admin/contacts/x')).status).toBe(401);
  });

  it('timeline merges events, journey states and emails newest first, filters by type, paginates', async () => {
    const userId = `tl-${randomUUID()}`;
    await create({ externalId: userId, email: 'tl@example.com' });
    const base = Date.now() - 3_600_000;
    await api.deps.db
      .insertInto('events')
      .values([
        { userId, event: 'signed_up', properties: JSON.stringify({ a: 1 }), occurredAt: new Date(base) },
        { userId, event: 'clicked', properties: '{}', occurredAt: new Date(base + 3_000) },
      ])
      .execute();
    const state = await api.deps.db
      .insertInto('journeyStates')
      .values({
        journeyId: 'welcome',
        userId,
        userEmail: 'tl@example.com',
        workflowId: `wf-${randomUUID()}`,
        status: 'completed',
        completedAt: new Date(base + 5_000),
        createdAt: new Date(base + 1_000),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await api.deps.db
      .insertInto('emailSends')
      .values({
        userId: null,
        templateKey: 'welcome',
        fromEmail: 'f@x.io',
        toEmail: 'TL@example.com',
        subject: 'Hi',
        status: 'sent',
        sentAt: new Date(base + 2_000),
        createdAt: new Date(base + 2_000),
      })
      .execute();

    const all = await api.request('GET', `/v1/admin/contacts/${userId}/timeline`, { token: keys.read });
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(4);
    expect(all.body.timeline.map((entry: { type: string }) => entry.type)).toEqual(['event', 'email', 'journey', 'event']);
    expect(all.body.timeline[2]).toMatchObject({
      type: 'journey',
      data: { id: state.id, journeyId: 'welcome', status: 'completed', completedAt: new Date(base + 5_000).toISOString(), exitedAt: null },
    });
    expect(all.body.timeline[1].data).toMatchObject({
      templateKey: 'welcome',
      subject: 'Hi',
      status: 'sent',
      toEmail: 'TL@example.com',
      sentAt: new Date(base + 2_000).toISOString(),
      openedAt: null,
    });
    expect(all.body.timeline[3]).toMatchObject({ timestamp: new Date(base).toISOString(), data: { event: 'signed_up', properties: { a: 1 } } });

    const events = await api.request('GET', `/v1/admin/contacts/${userId}/timeline?type=event&limit=1&offset=1`, { token: keys.read });
    expect(events.body).toMatchObject({ total: 2, limit: 1, offset: 1 });
    expect(events.body.timeline).toHaveLength(1);
    expect(events.body.timeline[0].data.event).toBe('signed_up');
  });

  it('pages a contact with 100k events from SQL (bounded by the test timeout; no timed assertion)', async () => {
    const userId = `big-${randomUUID()}`;
    await create({ externalId: userId });
    await sql`insert into events (user_id, event, properties, occurred_at)
      select ${userId}, 'e' || g, '{}'::jsonb, now() - (g || ' seconds')::interval from generate_series(1, 100000) g`.execute(api.deps.db);
    await sql`analyze events`.execute(api.deps.db);
    const page = await api.request('GET', `/v1/admin/contacts/${userId}/timeline?limit=50&offset=100`, { token: keys.read });
    expect(page.status).toBe(200);
    expect(page.body.total).toBe(100_000);
    expect(page.body.timeline[0].data.event).toBe('e101');
    const plan = await sql<{
      'QUERY PLAN': string;
    }>`explain select id from events where user_id = ${userId} order by occurred_at desc, id desc limit 150`.execute(api.deps.db);
    expect(plan.rows.map((row) => row['QUERY PLAN']).join('\n')).toMatch(/Index Scan|Index Only Scan|Incremental Sort/);
  });
});
