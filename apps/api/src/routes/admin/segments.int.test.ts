import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../../../../../test/test-api';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;
const DAY = 86_400_000;

/**
 * Segments over a fixed cast of contacts. Every tree is scoped to this run's contacts by a
 * property leaf (`run`), so contacts other tests stored in the database never match.
 */
describe('/v1/admin/segments', () => {
  let api: TestApi;
  const keys: Record<string, string> = {};
  const run = randomUUID();
  const listKey = `vip-${run}`;
  /** cast name → contact id */
  const ids: Record<string, string> = {};
  const ago = (days: number) => new Date(Date.now() - days * DAY);

  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY });
    for (const [name, scopes] of Object.entries({ read: ['read'], journeyAdmin: ['journey-admin'] })) {
      const created = await api.request('POST', '/v1/admin/api-keys', { token: LEGACY, body: { name: `segments-${name}`, scopes } });
      keys[name] = created.body.key;
    }
    const db = api.deps.db;
    const cast: Record<string, { externalId: string | null; email: string; properties: Record<string, unknown>; lastSeenDaysAgo: number }> = {
      ana: { externalId: `ana-${run}`, email: `ana-${run}@example.com`, properties: { plan: 'pro', seats: 10, tags: ['beta', 'early'] }, lastSeenDaysAgo: 0 },
      ben: { externalId: `ben-${run}`, email: `ben-${run}@example.com`, properties: { plan: 'free', seats: '3' }, lastSeenDaysAgo: 40 },
      cleo: { externalId: `cleo-${run}`, email: `cleo-${run}@example.com`, properties: { plan: 'pro' }, lastSeenDaysAgo: 2 },
      dan: { externalId: null, email: `dan-${run}@example.com`, properties: { plan: null }, lastSeenDaysAgo: 0 },
      eve: {
        externalId: `eve-${run}`,
        email: `eve-${run}@example.com`,
        properties: { plan: 'team', signupAt: '2024-03-01', company: { size: 'large' } },
        lastSeenDaysAgo: 0,
      },
    };
    for (const [name, contact] of Object.entries(cast)) {
      const row = await db
        .insertInto('contacts')
        .values({
          externalId: contact.externalId,
          email: contact.email,
          properties: JSON.stringify({ run, ...contact.properties }),
          firstSeenAt: ago(50),
          lastSeenAt: ago(contact.lastSeenDaysAgo),
          createdAt: ago(50),
          updatedAt: ago(0),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      ids[name] = row.id;
    }
    const event = (userId: string, daysAgo: number, properties: Record<string, unknown>) => ({
      userId,
      event: 'report.exported',
      properties: JSON.stringify(properties),
      occurredAt: ago(daysAgo),
      createdAt: ago(daysAgo),
    });
    await db
      .insertInto('events')
      .values([
        event(`ana-${run}`, 1, { format: 'csv' }),
        event(`ana-${run}`, 3, { format: 'csv' }),
        event(`ana-${run}`, 5, { format: 'pdf' }),
        event(`ben-${run}`, 10, { format: 'pdf' }),
        event(`cleo-${run}`, 60, { format: 'csv' }),
      ])
      .execute();
    const send = (to: string, userId: string | null, templateKey: string, times: { opened?: Date; humanOpened?: Date; humanClicked?: Date }) => ({
      userId,
      toEmail: to,
      fromEmail: 'team@example.com',
      templateKey,
      status: 'sent' as const,
      data: JSON.stringify({}),
      openedAt: times.opened ?? times.humanOpened ?? null,
      humanOpenedAt: times.humanOpened ?? null,
      clickedAt: times.humanClicked ?? null,
      humanClickedAt: times.humanClicked ?? null,
      createdAt: ago(3),
      updatedAt: ago(0),
    });
    await db
      .insertInto('emailSends')
      .values([
        send(cast.ana!.email, `ana-${run}`, 'weekly', { humanOpened: ago(2) }),
        // a machine open only (a scanner): not an open by a person
        send(cast.ben!.email, `ben-${run}`, 'weekly', { opened: ago(1), humanClicked: ago(1) }),
        // an address-only contact's send has no user id
        send(cast.dan!.email, null, 'digest', { humanOpened: ago(1) }),
        send(cast.cleo!.email, `cleo-${run}`, 'weekly', { humanOpened: ago(20) }),
      ])
      .execute();
    const list = await db.insertInto('lists').values({ key: listKey, name: 'VIP' }).returning('id').executeTakeFirstOrThrow();
    await db
      .insertInto('listMemberships')
      .values([
        { listId: list.id, contactId: ids.cleo!, subscribed: true, updatedAt: ago(0) },
        { listId: list.id, contactId: ids.eve!, subscribed: true, updatedAt: ago(0) },
        { listId: list.id, contactId: ids.dan!, subscribed: false, updatedAt: ago(0) },
      ])
      .execute();
  });
  afterAll(() => api.close());

  const scoped = (condition: unknown) => ({ all: [{ type: 'property', property: 'run', operator: 'eq', value: run }, condition] });
  const nameOf = (id: string) => Object.entries(ids).find(([, value]) => value === id)?.[0];

  async function members(condition: unknown): Promise<string[]> {
    const preview = await api.request('POST', '/v1/admin/segments/preview', { token: keys.read, body: { conditions: scoped(condition) } });
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);
    const names = preview.body.sample.map((contact: { id: string }) => nameOf(contact.id)).sort();
    expect(preview.body.count).toBe(names.length);
    return names;
  }

  const property = (name: string, operator: string, value?: unknown) => ({
    type: 'property',
    property: name,
    operator,
    ...(value === undefined ? {} : { value }),
  });

  it('property leaves: the journey operators on contact properties', async () => {
    expect(await members(property('plan', 'eq', 'pro'))).toEqual(['ana', 'cleo']);
    expect(await members(property('plan', 'neq', 'pro'))).toEqual(['ben', 'dan', 'eve']);
    expect(await members(property('seats', 'gt', 5))).toEqual(['ana']);
    // a numeric string compares as a number
    expect(await members(property('seats', 'lt', '5'))).toEqual(['ben']);
    expect(await members(property('seats', 'eq', 3))).toEqual(['ben']);
    expect(await members(property('signupAt', 'gte', '2024-02-15T00:00:00Z'))).toEqual(['eve']);
    expect(await members(property('tags', 'contains', 'beta'))).toEqual(['ana']);
    expect(await members(property('plan', 'contains', 'PR'))).toEqual(['ana', 'cleo']);
    expect(await members(property('plan', 'in', ['free', 'team']))).toEqual(['ben', 'eve']);
    expect(await members(property('plan', 'exists', false))).toEqual(['dan']);
    expect(await members(property('seats', 'exists'))).toEqual(['ana', 'ben']);
    expect(await members(property('company.size', 'eq', 'large'))).toEqual(['eve']);
    // values no cast may fail on: an impossible date, a JavaScript-only number, an object
    expect(await members(property('signupAt', 'lt', '2024-02-31'))).toEqual([]);
    expect(await members(property('seats', 'gt', '0x10'))).toEqual(['ben']);
    expect(await members(property('company', 'eq', { size: 'large' }))).toEqual(['eve']);
  });

  it('list, event, email and lastSeen leaves', async () => {
    // dan opted out of the list: only subscribed members count
    expect(await members({ type: 'list', list: listKey })).toEqual(['cleo', 'eve']);
    expect(await members({ type: 'event', event: 'report.exported', within: '30d' })).toEqual(['ana', 'ben']);
    expect(await members({ type: 'event', event: 'report.exported', within: '90d', where: [property('format', 'eq', 'csv')] })).toEqual(['ana', 'cleo']);
    expect(await members({ type: 'event', event: 'report.exported', within: '30d', minCount: 3 })).toEqual(['ana']);
    expect(await members({ type: 'event', event: 'report.exported', within: '30d', minCount: 4 })).toEqual([]);
    // ben's open was a machine's: people only
    expect(await members({ type: 'email', action: 'opened', within: '7d' })).toEqual(['ana', 'dan']);
    expect(await members({ type: 'email', action: 'opened', within: '30d', templateKey: 'weekly' })).toEqual(['ana', 'cleo']);
    expect(await members({ type: 'email', action: 'clicked', within: '7d' })).toEqual(['ben']);
    expect(await members({ type: 'lastSeen', within: '30d' })).toEqual(['ana', 'cleo', 'dan', 'eve']);
    expect(await members({ type: 'lastSeen', within: '1d' })).toEqual(['ana', 'dan', 'eve']);
    expect(await members({ type: 'lastSeen', within: '24 hours' })).toEqual(['ana', 'dan', 'eve']);
  });

  it('all, any and not', async () => {
    expect(await members({ any: [{ type: 'list', list: listKey }, property('plan', 'eq', 'free')] })).toEqual(['ben', 'cleo', 'eve']);
    expect(await members({ not: property('plan', 'eq', 'pro') })).toEqual(['ben', 'dan', 'eve']);
    expect(await members({ all: [property('plan', 'eq', 'pro'), { type: 'lastSeen', within: '1d' }] })).toEqual(['ana']);
    expect(
      await members({
        any: [{ all: [{ type: 'event', event: 'report.exported', within: '30d' }, { not: property('plan', 'eq', 'pro') }] }, { type: 'list', list: listKey }],
      }),
    ).toEqual(['ben', 'cleo', 'eve']);
    expect(await members({ all: [] })).toEqual(['ana', 'ben', 'cleo', 'dan', 'eve']);
    expect(await members({ any: [] })).toEqual([]);
  });

  it('refuses a bad tree with 400 naming the failing path', async () => {
    const bad = async (conditions: unknown) => {
      const answer = await api.request('POST', '/v1/admin/segments/preview', { token: keys.read, body: { conditions } });
      expect(answer.status).toBe(400);
      return answer.body.error as string;
    };
    expect(await bad({ all: [property('plan', 'eq', 'pro'), property('plan', 'between', 1)] })).toMatch(/^conditions\.all\[1\]\.operator: /);
    expect(await bad({ all: [property('plan', 'in', 'pro')] })).toMatch(/^conditions\.all\[0\]\.value: operator 'in' needs an array/);
    expect(await bad({ not: { type: 'segment', id: 'x' } })).toMatch(/^conditions\.not\.type: must be one of property, list, event, email, lastSeen/);
    expect(await bad({ any: [{ type: 'event', event: 'x', within: 'a month' }] })).toMatch(
      /^conditions\.any\[0\]\.within: must be a duration longer than 0, such as '30d'/,
    );
    expect(await bad({ any: [{ type: 'event', event: 'x', within: '0d' }] })).toMatch(/^conditions\.any\[0\]\.within: must be a duration longer than 0/);
    expect(await bad({ any: [{ type: 'event', event: 'x', within: '3651d' }] })).toBe('conditions.any[0].within: must be at most ten years (3650d)');
    expect(await bad({ any: [{ type: 'email', action: 'bounced', within: '7d' }] })).toMatch(/^conditions\.any\[0\]\.action: /);
    expect(await bad({ all: [{ type: 'lastSeen', within: '1d', extra: true }] })).toMatch(/^conditions\.all\[0\]/);
    expect(await bad({ all: property('plan', 'eq', 'pro') })).toBe('conditions.all: must be an array of conditions');
    expect(await bad({ all: [], any: [] })).toMatch(/^conditions: a group has exactly one key/);
    expect(await bad([property('plan', 'eq', 'pro')])).toMatch(/^conditions: must be an object/);
    expect(await bad({ all: [{ not: { any: [{ all: [{ not: { type: 'lastSeen', within: '1d' } }] }] } }] })).toBe(
      'conditions.all[0].not.any[0].all[0].not: conditions nest at most 5 levels deep',
    );
    const leaves = Array.from({ length: 51 }, () => ({ type: 'lastSeen', within: '1d' }));
    expect(await bad({ any: leaves })).toBe('conditions.any[50]: a segment has at most 50 leaf conditions');
    expect(await bad({ all: [{ type: 'list', list: `missing-${run}` }] })).toBe(`conditions.all[0].list: no list with key 'missing-${run}'`);
    const missing = await api.request('POST', '/v1/admin/segments/preview', { token: keys.read, body: {} });
    expect(missing.status).toBe(400);
  });

  it('saves, lists, reads, pages, edits and deletes a segment, audited, with the scopes', async () => {
    const body = { name: `Pro users ${run}`, description: 'on the pro plan', conditions: scoped(property('plan', 'eq', 'pro')) };
    expect((await api.request('POST', '/v1/admin/segments', { token: keys.read, body })).status).toBe(403);
    const created = await api.request('POST', '/v1/admin/segments', { token: keys.journeyAdmin, body });
    expect(created.status).toBe(201);
    expect(created.body.segment).toMatchObject({ name: body.name, description: 'on the pro plan', conditions: body.conditions, count: 2 });
    const id = created.body.segment.id as string;
    expect((await api.request('POST', '/v1/admin/segments', { token: keys.journeyAdmin, body: { ...body, name: body.name.toUpperCase() } })).status).toBe(409);
    const refused = await api.request('POST', '/v1/admin/segments', { token: keys.journeyAdmin, body: { ...body, conditions: { not: {} } } });
    expect(refused).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^conditions\.not\.type: /) } });

    const listed = await api.request('GET', '/v1/admin/segments?limit=100', { token: keys.read });
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ limit: 100, offset: 0 });
    expect(listed.body.segments.find((segment: { id: string }) => segment.id === id)).toMatchObject({ count: 2 });

    const read = await api.request('GET', `/v1/admin/segments/${id}`, { token: keys.read });
    expect(read.body.segment).toMatchObject({ id, count: 2 });
    const firstPage = await api.request('GET', `/v1/admin/segments/${id}/contacts?limit=1`, { token: keys.read });
    expect(firstPage.body).toMatchObject({ total: 2, limit: 1, offset: 0 });
    // most recently seen first: ana (today) before cleo (2 days ago)
    expect(firstPage.body.contacts.map((contact: { id: string }) => nameOf(contact.id))).toEqual(['ana']);
    const secondPage = await api.request('GET', `/v1/admin/segments/${id}/contacts?limit=1&offset=1`, { token: keys.read });
    expect(secondPage.body.contacts.map((contact: { id: string }) => nameOf(contact.id))).toEqual(['cleo']);

    const patched = await api.request('PATCH', `/v1/admin/segments/${id}`, {
      token: keys.journeyAdmin,
      body: { description: null, conditions: scoped(property('plan', 'in', ['pro', 'team'])) },
    });
    expect(patched.status).toBe(200);
    // an edit is counted afresh, not served from the cache
    expect(patched.body.segment).toMatchObject({ name: body.name, description: null, count: 3 });

    expect((await api.request('DELETE', `/v1/admin/segments/${id}`, { token: keys.read })).status).toBe(403);
    const deleted = await api.request('DELETE', `/v1/admin/segments/${id}`, { token: keys.journeyAdmin });
    expect(deleted).toMatchObject({ status: 200, body: { deleted: true } });
    expect((await api.request('GET', `/v1/admin/segments/${id}`, { token: keys.read })).status).toBe(404);
    expect((await api.request('GET', `/v1/admin/segments/${id}/contacts`, { token: keys.read })).status).toBe(404);
    expect((await api.request('PATCH', `/v1/admin/segments/${id}`, { token: keys.journeyAdmin, body: { name: 'x' } })).status).toBe(404);

    const audit = await api.deps.db.selectFrom('auditLogs').select(['action', 'resource']).where('resourceId', '=', id).orderBy('createdAt').execute();
    expect(audit).toEqual([
      { action: 'create', resource: 'segment' },
      { action: 'update', resource: 'segment' },
      { action: 'delete', resource: 'segment' },
    ]);
  });
});
