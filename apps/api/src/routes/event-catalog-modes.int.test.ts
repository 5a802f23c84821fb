import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../../test/eventually';
import { journeyStatesOf } from '../../../../test/journey-states';
import { issueApiKey, startTestApi, type TestApi } from '../../../../test/test-api';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;
const PRODUCT = `product-${randomUUID()}`;
const violation = (path: string) => ({ path, message: expect.any(String) });

/**
 * Catalog violations are kept (docs/journeys.md, "Catalog violations"): quarantine (the default)
 * stores the event with its violations and moves no journey; off ingests it as it came. Reject,
 * today's 400, is event-catalog.int.test.ts.
 */
describe('EVENT_CATALOG_MODE=quarantine (the default)', () => {
  let api: TestApi;
  let ingestKey: string;
  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY, PRODUCT_WEBHOOK_SECRET: PRODUCT });
    ingestKey = await issueApiKey(api, LEGACY, 'producer', ['ingest']);
  });
  afterAll(() => api.close());

  const ingest = (body: object) => api.request('POST', '/v1/events', { token: ingestKey, body });
  const eventsOf = (userId: string) =>
    api.deps.db
      .selectFrom('events')
      .select(['id', 'event', 'source', 'catalogViolations'])
      .where('userId', '=', userId)
      .orderBy('createdAt')
      .orderBy('id')
      .execute();
  /** the runs of a journey for a user, once `count` exist (a start is asynchronous to the answer) */
  const runsOnce = (userId: string, journeyId: string, count = 1) =>
    eventually(
      () => journeyStatesOf(api.deps.db, userId, journeyId),
      (rows) => rows.length >= count,
      { what: `${count} ${journeyId} run(s) of ${userId}` },
    );

  it('stores the event with its violations, answers 202 quarantined, upserts the contact and starts nothing', async () => {
    const userId = `q-${randomUUID()}`;
    // user.signed_up starts the welcome series (no where): only the quarantine keeps this one out
    const response = await ingest({
      name: 'user.signed_up',
      userId,
      email: `${userId}@example.com`,
      eventProperties: { plan: 'enterprise' },
      contactProperties: { company: 'Acme' },
    });
    expect(response.status).toBe(202);
    expect(response.body).toEqual({ stored: true, exits: [], quarantined: true, catalogViolations: [violation('plan')] });
    const [stored] = await eventsOf(userId);
    expect(stored).toMatchObject({ event: 'user.signed_up', catalogViolations: [violation('plan')] });
    const contact = await api.deps.db.selectFrom('contacts').selectAll().where('externalId', '=', userId).executeTakeFirstOrThrow();
    expect(contact).toMatchObject({ email: `${userId}@example.com`, properties: { company: 'Acme' } });

    // the same user's valid event starts the journey (entered once per user): the one run is that event's
    const valid = await ingest({ name: 'user.signed_up', userId, email: `${userId}@example.com`, eventProperties: { plan: 'pro' } });
    expect(valid.body).toEqual({ stored: true, exits: [] });
    const runs = await runsOnce(userId, 'welcome-series');
    const validId = (await eventsOf(userId))[1]!.id;
    expect(runs.map((run) => run.triggerEventId)).toEqual([validId]);
    expect((await api.request('GET', `/v1/admin/events/${stored!.id}/journeys`, { token: LEGACY })).body).toEqual({ journeys: [] });
  });

  it('exits nothing: a quarantined exit event leaves the run waiting; the valid one exits it', async () => {
    const userId = `q-${randomUUID()}`;
    await ingest({ name: 'trial.started', userId, email: `${userId}@example.com`, eventProperties: { plan: 'pro' } });
    const [run] = await eventually(
      () => journeyStatesOf(api.deps.db, userId, 'trial-conversion'),
      (rows) => rows[0]?.status === 'waiting',
      { what: 'a waiting trial-conversion run' },
    );
    // trial-conversion exits on any subscription.started; this one's plan is not the catalog's string
    const quarantined = await ingest({ name: 'subscription.started', userId, eventProperties: { plan: 5 } });
    expect(quarantined.body).toEqual({ stored: true, exits: [], quarantined: true, catalogViolations: [violation('plan')] });
    const after = await api.deps.db.selectFrom('journeyStates').select('status').where('id', '=', run!.id).executeTakeFirstOrThrow();
    expect(after.status).toBe('waiting');
    const exit = await ingest({ name: 'subscription.started', userId, eventProperties: { plan: 'pro' } });
    expect(exit.body).toEqual({ stored: true, exits: [{ journeyId: 'trial-conversion', stateId: run!.id, exited: true }] });
  });

  it('GET /v1/admin/events?quarantined=true lists only quarantined events, each with its violations', async () => {
    const userId = `q-${randomUUID()}`;
    await ingest({ name: 'user.inactive', userId, eventProperties: { daysInactive: 'many' } });
    await ingest({ name: 'page.viewed', userId, eventProperties: { path: '/' } });
    const list = (query: string) => api.request('GET', `/v1/admin/events?userId=${userId}${query}`, { token: LEGACY });
    const quarantined = await list('&quarantined=true');
    expect(quarantined.status).toBe(200);
    expect(quarantined.body).toMatchObject({ total: 1, events: [{ event: 'user.inactive', catalogViolations: [violation('daysInactive')] }] });
    const others = await list('&quarantined=false');
    expect(others.body).toMatchObject({ total: 1, events: [{ event: 'page.viewed' }] });
    expect(others.body.events[0]).not.toHaveProperty('catalogViolations');
    expect((await list('')).body.total).toBe(2);
    const one = await api.request('GET', `/v1/admin/events/${quarantined.body.events[0].id}`, { token: LEGACY });
    expect(one.body.event.catalogViolations).toEqual([violation('daysInactive')]);
    expect((await list('&quarantined=maybe')).status).toBe(400);
  });

  it('a replay after the catalog was fixed routes the event normally; one still in violation is quarantined again', async () => {
    const userId = `q-${randomUUID()}`;
    // as a quarantined event looks once the catalog has learnt its value: stored with the
    // violations of the catalog of the time, properties that the catalog now accepts
    const fixed = randomUUID();
    await api.deps.db
      .insertInto('events')
      .values({
        id: fixed,
        userId,
        userEmail: `${userId}@example.com`,
        event: 'trial.started',
        properties: JSON.stringify({ plan: 'team' }),
        source: 'api',
        occurredAt: new Date(),
        catalogViolations: JSON.stringify([{ path: 'plan', message: "Invalid option: expected one of 'free'|'pro'" }]),
      })
      .execute();
    const broken = await ingest({ name: 'user.inactive', userId, eventProperties: { daysInactive: -1 } });
    expect(broken.body.quarantined).toBe(true);

    const replay = await api.request('POST', '/v1/admin/events/replay', { token: LEGACY, body: { filter: { userId, quarantined: true } } });
    expect(replay).toMatchObject({ status: 200, body: { replayed: 2, errors: [] } });
    const replayed = (await eventsOf(userId)).filter((event) => event.source === 'replay');
    expect(replayed).toEqual([
      expect.objectContaining({ event: 'trial.started', catalogViolations: null }),
      expect.objectContaining({ event: 'user.inactive', catalogViolations: [violation('daysInactive')] }),
    ]);
    const runs = await runsOnce(userId, 'trial-conversion');
    expect(runs.map((run) => run.triggerEventId)).toEqual([replayed[0]!.id]);
  });

  it('a webhook source follows the mode: the event is stored quarantined, its contact upserted, no journey started', async () => {
    const accountId = `acct-${randomUUID()}`;
    const post = (account: object) => {
      const body = JSON.stringify({ id: `msg-${randomUUID()}`, type: 'account.created', account });
      const signature = `sha256=${createHmac('sha256', PRODUCT).update(body).digest('hex')}`;
      return api.request('POST', '/v1/webhooks/product-backend', { body, headers: { 'content-type': 'application/json', 'x-product-signature': signature } });
    };
    // account.created becomes user.signed_up, whose plan the catalog lists as free | pro | team
    const response = await post({ id: accountId, email: `${accountId}@example.com`, plan: 'gold' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      ok: true,
      event: 'user.signed_up',
      userId: accountId,
      exits: [],
      quarantined: true,
      catalogViolations: [violation('plan')],
    });
    const [stored] = await eventsOf(accountId);
    expect(stored).toMatchObject({ event: 'user.signed_up', source: 'webhook', catalogViolations: [violation('plan')] });
    const contact = await api.deps.db.selectFrom('contacts').selectAll().where('externalId', '=', accountId).executeTakeFirstOrThrow();
    expect(contact.properties).toEqual({ plan: 'gold' });

    const valid = await post({ id: accountId, email: `${accountId}@example.com`, plan: 'pro' });
    expect(valid.body).toEqual({ ok: true, event: 'user.signed_up', userId: accountId, exits: [] });
    const runs = await runsOnce(accountId, 'welcome-series');
    expect(runs.map((run) => run.triggerEventId)).toEqual([(await eventsOf(accountId))[1]!.id]);
  });
});

describe('EVENT_CATALOG_MODE=off', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY, EVENT_CATALOG_MODE: 'off' });
  });
  afterAll(() => api.close());

  it('ingests a catalogued event that misses its schema as any other: stored without violations, routed', async () => {
    const userId = `off-${randomUUID()}`;
    const response = await api.request('POST', '/v1/events', {
      token: LEGACY,
      body: { name: 'user.signed_up', userId, email: `${userId}@example.com`, eventProperties: { plan: 'enterprise' } },
    });
    expect(response).toMatchObject({ status: 202, body: { stored: true, exits: [] } });
    expect(response.body).not.toHaveProperty('quarantined');
    const stored = await api.deps.db.selectFrom('events').select(['id', 'catalogViolations']).where('userId', '=', userId).executeTakeFirstOrThrow();
    expect(stored.catalogViolations).toBeNull();
    const runs = await eventually(
      () => journeyStatesOf(api.deps.db, userId, 'welcome-series'),
      (rows) => rows.length > 0,
      { what: 'the welcome-series run' },
    );
    expect(runs.map((run) => run.triggerEventId)).toEqual([stored.id]);
  });
});
