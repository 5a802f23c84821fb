import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../../../test/eventually';
import { journeyStatesOf } from '../../../../../test/journey-states';
import { issueApiKey, startTestApi, type TestApi } from '../../../../../test/test-api';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

describe('POST /v1/events (ingest pipeline)', () => {
  let api: TestApi;
  let ingestKey: string;
  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY });
    ingestKey = await issueApiKey(api, LEGACY, 'producer', ['ingest']);
  });
  afterAll(() => api.close());

  const liveStates = (userId: string, journeyId: string) => journeyStatesOf(api.deps.db, userId, journeyId);

  it('stores an event that triggers nothing, upserts the contact (contactProperties only) and answers 202', async () => {
    const userId = `u-${randomUUID()}`;
    const response = await api.request('POST', '/v1/events', {
      token: ingestKey,
      body: {
        name: 'page.viewed',
        userId,
        email: `${userId}@example.com`,
        eventProperties: { path: '/home', nested: { snake_case: 1 } },
        contactProperties: { plan: 'free' },
      },
    });
    expect(response.status).toBe(202);
    expect(response.body).toEqual({ stored: true, exits: [] });
    const event = await api.deps.db.selectFrom('events').selectAll().where('userId', '=', userId).executeTakeFirstOrThrow();
    expect(event).toMatchObject({ event: 'page.viewed', source: 'api' });
    const contact = await api.deps.db.selectFrom('contacts').selectAll().where('externalId', '=', userId).executeTakeFirstOrThrow();
    expect(contact.email).toBe(`${userId}@example.com`);
    expect(contact.properties).toEqual({ plan: 'free' });
    // event properties keep their keys exactly (no camelCasing of user data) on the admin plane
    const listed = await api.request('GET', `/v1/admin/events?userId=${userId}`, { token: LEGACY });
    expect(listed.body.events[0].properties).toEqual({ path: '/home', nested: { snake_case: 1 } });
  });

  it('accepts an email-only event and keys the contact by address', async () => {
    const email = `only-${randomUUID()}@example.com`;
    const response = await api.request('POST', '/v1/events', { token: ingestKey, body: { name: 'newsletter.opened', email } });
    expect(response.status).toBe(202);
    const contact = await api.deps.db.selectFrom('contacts').selectAll().where('email', '=', email).executeTakeFirstOrThrow();
    expect(contact.externalId).toBeNull();
  });

  it('honours Idempotency-Key (header wins over body): a repeat stores and routes nothing', async () => {
    const userId = `u-${randomUUID()}`;
    const key = `idem-${randomUUID()}`;
    const body = { name: 'user.signed_up', userId, email: `${userId}@example.com`, idempotencyKey: 'ignored-body-key' };
    const first = await api.request('POST', '/v1/events', { token: ingestKey, body, headers: { 'idempotency-key': key } });
    const second = await api.request('POST', '/v1/events', { token: ingestKey, body, headers: { 'idempotency-key': key } });
    expect(first.body.stored).toBe(true);
    expect(second).toMatchObject({ status: 202, body: { stored: false, exits: [] } });
    const events = await api.deps.db.selectFrom('events').select(['idempotencyKey']).where('userId', '=', userId).execute();
    expect(events).toEqual([{ idempotencyKey: key }]);
    const states = await eventually(
      () => liveStates(userId, 'welcome-series'),
      (rows) => rows.length > 0,
    );
    expect(states).toHaveLength(1);
  });

  it('a repeated Idempotency-Key leaves the contact untouched (the contact is written with the event, not without it)', async () => {
    const userId = `u-${randomUUID()}`;
    const key = `idem-${randomUUID()}`;
    const send = (plan: string) =>
      api.request('POST', '/v1/events', {
        token: ingestKey,
        body: { name: 'page.viewed', userId, contactProperties: { plan } },
        headers: { 'idempotency-key': key },
      });
    expect((await send('free')).body.stored).toBe(true);
    expect((await send('pro')).body.stored).toBe(false);
    const contact = await api.deps.db.selectFrom('contacts').select('properties').where('externalId', '=', userId).executeTakeFirstOrThrow();
    expect(contact.properties).toEqual({ plan: 'free' });
  });

  it('a repeated Idempotency-Key leaves list membership as it is: a later unsubscribe from the list stays', async () => {
    const email = `lists-${randomUUID().slice(0, 8)}@example.com`;
    const listKey = `l-${randomUUID().slice(0, 8)}`;
    const key = `idem-${randomUUID()}`;
    const joined = () =>
      api.request('POST', '/v1/events', {
        token: ingestKey,
        body: { name: 'newsletter.joined', email, lists: { [listKey]: true } },
        headers: { 'idempotency-key': key },
      });
    expect((await joined()).body).toEqual({ stored: true, exits: [] });
    const left = await api.request('POST', '/v1/events', { token: ingestKey, body: { name: 'newsletter.left', email, lists: { [listKey]: false } } });
    expect(left.body).toEqual({ stored: true, exits: [] });
    expect((await joined()).body).toEqual({ stored: false, exits: [] });
    const memberships = await api.deps.db
      .selectFrom('listMemberships')
      .innerJoin('lists', 'lists.id', 'listMemberships.listId')
      .innerJoin('contacts', 'contacts.id', 'listMemberships.contactId')
      .select(['listMemberships.subscribed'])
      .where('lists.key', '=', listKey)
      .execute();
    expect(memberships).toEqual([{ subscribed: false }]);
  });

  it('a contact PostgreSQL refuses is logged and the event still stored (202, listsError for its lists)', async () => {
    const userId = `refused-${randomUUID()}`;
    // a constraint only this user's contact breaks: the contact write fails, the event's must not
    const constraint = sql.id(`test_refuse_${userId.replace(/-/g, '_')}`);
    await sql`alter table contacts add constraint ${constraint} check (external_id is distinct from ${sql.lit(userId)}) not valid`.execute(api.deps.db);
    try {
      const response = await api.request('POST', '/v1/events', { token: ingestKey, body: { name: 'page.viewed', userId, lists: { [`l-${userId}`]: true } } });
      expect(response.status).toBe(202);
      expect(response.body).toEqual({ stored: true, exits: [], listsError: 'Contact could not be resolved; list membership not written' });
    } finally {
      await sql`alter table contacts drop constraint ${constraint}`.execute(api.deps.db);
    }
    expect(await api.deps.db.selectFrom('events').select('event').where('userId', '=', userId).execute()).toEqual([{ event: 'page.viewed' }]);
    expect(await api.deps.db.selectFrom('contacts').select('id').where('externalId', '=', userId).execute()).toEqual([]);
  });

  it('starts the triggered journey: a state appears, logs entered + email_sent, and the intended send is recorded', async () => {
    const userId = `u-${randomUUID()}`;
    const response = await api.request('POST', '/v1/events', {
      token: ingestKey,
      body: { name: 'user.signed_up', userId, email: `${userId}@example.com`, eventProperties: { firstName: 'Ada' } },
    });
    expect(response.status).toBe(202);
    const states = await eventually(
      () => liveStates(userId, 'welcome-series'),
      (rows) => rows[0]?.status === 'waiting',
    );
    expect(states[0]).toMatchObject({ status: 'waiting', currentNodeId: 'sleep:2 days', userEmail: `${userId}@example.com` });
    expect(states[0]!.workflowId).toMatch(/^journey:welcome-series:/);
    const detail = await api.request('GET', `/v1/admin/journeys/welcome-series/states/${states[0]!.id}`, { token: LEGACY });
    expect(detail.body.logs.map((log: { action: string }) => log.action)).toEqual(['entered', 'email_sent', 'waiting']);
    const send = await api.deps.db.selectFrom('emailSends').selectAll().where('journeyStateId', '=', states[0]!.id).executeTakeFirstOrThrow();
    expect(send).toMatchObject({ templateKey: 'welcome', toEmail: `${userId}@example.com` });
  });

  it('exitOn: the next matching event reports exited in `exits` and the state is exited', async () => {
    const userId = `u-${randomUUID()}`;
    await api.request('POST', '/v1/events', { token: ingestKey, body: { name: 'user.signed_up', userId, email: `${userId}@example.com` } });
    const [state] = await eventually(
      () => liveStates(userId, 'welcome-series'),
      (rows) => rows[0]?.status === 'waiting',
    );
    const other = await api.request('POST', '/v1/events', { token: ingestKey, body: { name: 'page.viewed', userId } });
    expect(other.body.exits).toEqual([{ journeyId: 'welcome-series', stateId: state!.id, exited: false }]);
    const exit = await api.request('POST', '/v1/events', { token: ingestKey, body: { name: 'user.deleted', userId } });
    expect(exit.body.exits).toEqual([{ journeyId: 'welcome-series', stateId: state!.id, exited: true }]);
    const after = await api.deps.db.selectFrom('journeyStates').selectAll().where('id', '=', state!.id).executeTakeFirstOrThrow();
    expect(after.status).toBe('exited');
    expect(after.exitedAt).not.toBeNull();
    // the run is cancelled: its history ends as cancelled
    const description = await eventually(
      () => api.deps.temporal.client.workflow.getHandle(state!.workflowId).describe(),
      (d) => d.status.name === 'CANCELLED',
    );
    expect(description.status.name).toBe('CANCELLED');
  });

  it('entry limit under concurrency: the same trigger fired 20 times at once yields exactly one state', async () => {
    const userId = `u-${randomUUID()}`;
    const body = { name: 'user.signed_up', userId, email: `${userId}@example.com` };
    const responses = await Promise.all(Array.from({ length: 20 }, () => api.request('POST', '/v1/events', { token: ingestKey, body })));
    expect(responses.every((response) => response.status === 202)).toBe(true);
    await eventually(
      () => liveStates(userId, 'welcome-series'),
      (rows) => rows.length > 0,
    );
    // give the other 19 runs time to reach their guard
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(await liveStates(userId, 'welcome-series')).toHaveLength(1);
    const entries = await api.deps.db.selectFrom('journeyEntries').selectAll().where('userId', '=', userId).execute();
    expect(entries).toHaveLength(1);
  });

  it('a trigger failing trigger.where is not an entry', async () => {
    const userId = `u-${randomUUID()}`;
    await api.request('POST', '/v1/events', {
      token: ingestKey,
      body: { name: 'trial.started', userId, email: `${userId}@example.com`, eventProperties: { plan: 'free' } },
    });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await liveStates(userId, 'trial-conversion')).toHaveLength(0);
    await api.request('POST', '/v1/events', {
      token: ingestKey,
      body: { name: 'trial.started', userId, email: `${userId}@example.com`, eventProperties: { plan: 'pro' } },
    });
    expect(
      await eventually(
        () => liveStates(userId, 'trial-conversion'),
        (rows) => rows.length > 0,
      ),
    ).toHaveLength(1);
  });

  it('an unsubscribed user does not enter', async () => {
    const userId = `u-${randomUUID()}`;
    const email = `${userId}@example.com`;
    await api.deps.db.insertInto('emailPreferences').values({ userId, email, unsubscribedAll: true, categories: '{}' }).execute();
    await api.request('POST', '/v1/events', { token: ingestKey, body: { name: 'user.signed_up', userId, email } });
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await liveStates(userId, 'welcome-series')).toHaveLength(0);
  });

  it('writes list membership (creating unknown lists) and reports no listsError', async () => {
    const userId = `u-${randomUUID()}`;
    const listKey = `news-${randomUUID()}`;
    const response = await api.request('POST', '/v1/events', { token: ingestKey, body: { name: 'profile.updated', userId, lists: { [listKey]: true } } });
    expect(response.body).toEqual({ stored: true, exits: [] });
    const membership = await api.deps.db
      .selectFrom('listMemberships')
      .innerJoin('lists', 'lists.id', 'listMemberships.listId')
      .select(['lists.key', 'listMemberships.subscribed'])
      .where('lists.key', '=', listKey)
      .executeTakeFirstOrThrow();
    expect(membership).toEqual({ key: listKey, subscribed: true });
  });

  it.each([
    ['no name', { userId: 'u1' }],
    ['empty name', { name: '', userId: 'u1' }],
    ['neither userId nor email', { name: 'x' }],
    ['bad email', { name: 'x', email: 'not-an-email' }],
    ['bad timestamp', { name: 'x', userId: 'u1', timestamp: 'yesterday' }],
    ['eventProperties not an object', { name: 'x', userId: 'u1', eventProperties: 'nope' }],
    ['lists with a non-boolean', { name: 'x', userId: 'u1', lists: { a: 'yes' } }],
  ])('%s → 400 {error}', async (_name, body) => {
    const response = await api.request('POST', '/v1/events', { token: ingestKey, body });
    expect(response.status).toBe(400);
    expect(typeof response.body.error).toBe('string');
  });

  it('401 without a key', async () => {
    expect((await api.request('POST', '/v1/events', { body: { name: 'x', userId: 'u' } })).status).toBe(401);
  });
});
