import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../test/eventually';
import { KILL_AFTER_COMMIT, startFaultApiProcess } from '../../../test/fault-api-process';
import { journeyStatesOf } from '../../../test/journey-states';
import { requestJson, startTestApi, type TestApi } from '../../../test/test-api';
import { integrationEnv } from '../../../test/test-env';
import { exited } from '../../../test/worker-process';

const ADMIN = `crash-${randomUUID()}-${randomUUID()}`;

/**
 * An api killed between an event's commit and its routing (docs/operations.md, "What to expect of
 * an outage"): the event and its journey effects were committed together, so the producer's retry
 * (same Idempotency-Key) finds them kept and carries them out before it answers: one start, one
 * exit, nothing twice. No relay runs in this file's worker, so the retry is what routes them.
 */
describe('an api killed after an event commit: the retried request routes it', () => {
  let api: TestApi;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: ADMIN });
  });
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await api?.close();
  });

  /** Posts the event to an api that dies once it has committed it, and waits for that death. */
  async function postToDyingApi(body: object, key: string): Promise<void> {
    const { child, url } = await startFaultApiProcess({ ...integrationEnv(), ADMIN_API_KEY: ADMIN });
    children.push(child);
    const answer = await requestJson(url)('POST', '/v1/events', { token: ADMIN, body, headers: { 'idempotency-key': key } }).then(
      () => 'answered',
      () => 'connection lost',
    );
    await exited(child);
    expect(answer).toBe('connection lost');
    expect(child.signalCode).toBe('SIGKILL');
  }

  const keptEffects = (eventId: string) =>
    api.deps.db.selectFrom('eventEffects').select(['kind', 'journeyId']).where('eventId', '=', eventId).orderBy('seq').execute();
  const eventByKey = (key: string) => api.deps.db.selectFrom('events').select('id').where('idempotencyKey', '=', key).executeTakeFirstOrThrow();
  const retry = (body: object, key: string) => api.request('POST', '/v1/events', { token: ADMIN, body, headers: { 'idempotency-key': key } });

  it('a sign-up and an exit, each committed by an api that died before routing: their retries start one run and cancel it once', async () => {
    const userId = `crash-${randomUUID()}`;
    const signUp = { name: 'user.signed_up', userId, email: `${userId}@example.com` };
    const signUpKey = `${KILL_AFTER_COMMIT}${randomUUID()}`;

    // 1. the sign-up is stored with its start, and nothing started it
    await postToDyingApi(signUp, signUpKey);
    const signUpEvent = await eventByKey(signUpKey);
    expect(await keptEffects(signUpEvent.id)).toEqual([{ kind: 'start', journeyId: 'welcome-series' }]);
    expect(await journeyStatesOf(api.deps.db, userId, 'welcome-series')).toEqual([]);

    // the producer retries: the request carries out the kept start before it answers
    const retried = await retry(signUp, signUpKey);
    expect(retried.status).toBe(202);
    expect(retried.body).toEqual({ stored: false, exits: [] });
    expect(await keptEffects(signUpEvent.id)).toEqual([]);
    const [state] = await eventually(
      () => journeyStatesOf(api.deps.db, userId, 'welcome-series'),
      (rows) => rows[0]?.status === 'waiting' && rows[0].currentNodeId === 'sleep:2 days',
      { what: 'the run started by the retry, asleep after its welcome' },
    );

    // 2. the exit is stored with its exit applied and the run's cancellation kept; the run still sleeps
    const exit = { name: 'user.deleted', userId };
    const exitKey = `${KILL_AFTER_COMMIT}${randomUUID()}`;
    await postToDyingApi(exit, exitKey);
    const exitEvent = await eventByKey(exitKey);
    expect(await keptEffects(exitEvent.id)).toEqual([{ kind: 'exit', journeyId: 'welcome-series' }]);
    const handle = api.deps.temporal.client.workflow.getHandle(state!.workflowId);
    expect((await handle.describe()).status.name).toBe('RUNNING');

    const exitRetried = await retry(exit, exitKey);
    expect(exitRetried.body).toEqual({ stored: false, exits: [] });
    expect(await keptEffects(exitEvent.id)).toEqual([]);
    const closed = await eventually(
      () => handle.describe(),
      (description) => description.status.name !== 'RUNNING',
      { what: 'the run cancelled by the retried exit' },
    );
    expect(closed.status.name).toBe('CANCELLED');

    // nothing twice: retried again, both answer stored: false and change nothing
    expect((await retry(signUp, signUpKey)).body).toEqual({ stored: false, exits: [] });
    expect((await retry(exit, exitKey)).body).toEqual({ stored: false, exits: [] });
    const states = await journeyStatesOf(api.deps.db, userId, 'welcome-series');
    expect(states.map((row) => [row.id, row.status])).toEqual([[state!.id, 'exited']]);
    const exitLogs = await sql<{ n: number }>`select count(*)::int as n from journey_logs where journey_state_id = ${state!.id} and action = 'exited'`.execute(
      api.deps.db,
    );
    expect(exitLogs.rows[0]!.n).toBe(1);
    const sends = await api.deps.db.selectFrom('emailSends').select('templateKey').where('userId', '=', userId).execute();
    expect(sends).toEqual([{ templateKey: 'welcome' }]);
    const events = await api.deps.db.selectFrom('events').select('event').where('userId', '=', userId).orderBy('occurredAt').execute();
    expect(events).toEqual([{ event: 'user.signed_up' }, { event: 'user.deleted' }]);
  }, 180_000);

  const contactByAddress = (email: string) =>
    api.deps.db
      .selectFrom('contacts')
      .select(['id', 'externalId'])
      .where(sql<string>`lower(email)`, '=', email.toLowerCase())
      .executeTakeFirst();
  /** The contact's list memberships, by list key. */
  const membershipsOf = (contactId: string) =>
    api.deps.db
      .selectFrom('listMemberships')
      .innerJoin('lists', 'lists.id', 'listMemberships.listId')
      .select(['lists.key', 'listMemberships.subscribed'])
      .where('listMemberships.contactId', '=', contactId)
      .execute();

  it('an event with lists, keyed by user id, committed by an api that died after the commit: its lists were committed with it', async () => {
    const userId = `crash-${randomUUID()}`;
    const listKey = `crash-list-${randomUUID().slice(0, 8)}`;
    const joined = { name: 'newsletter.joined', userId, email: `${userId}@example.com`, lists: { [listKey]: true } };
    const key = `${KILL_AFTER_COMMIT}${randomUUID()}`;

    await postToDyingApi(joined, key);
    await eventByKey(key);
    const contact = await api.deps.db.selectFrom('contacts').select('id').where('externalId', '=', userId).executeTakeFirstOrThrow();
    expect(await membershipsOf(contact.id)).toEqual([{ key: listKey, subscribed: true }]);

    // a later unsubscribe from the list stays when the producer retries: the retry writes nothing
    await api.deps.db.updateTable('listMemberships').set({ subscribed: false }).where('contactId', '=', contact.id).execute();
    const retried = await retry(joined, key);
    expect(retried.status).toBe(202);
    expect(retried.body).toEqual({ stored: false, exits: [] });
    expect(await membershipsOf(contact.id)).toEqual([{ key: listKey, subscribed: false }]);
  }, 120_000);

  it('an email-only event with lists, committed by an api that died after the commit: its contact and lists were committed with it', async () => {
    const email = `crash-${randomUUID().slice(0, 8)}@Example.com`;
    const listKey = `crash-list-${randomUUID().slice(0, 8)}`;
    const joined = { name: 'newsletter.joined', email, lists: { [listKey]: true } };
    const key = `${KILL_AFTER_COMMIT}${randomUUID()}`;
    const contactOf = () => contactByAddress(email);

    await postToDyingApi(joined, key);
    await eventByKey(key);
    const contact = await contactOf();
    expect(contact).toMatchObject({ externalId: null });
    expect(await membershipsOf(contact!.id)).toEqual([{ key: listKey, subscribed: true }]);

    const retried = await retry(joined, key);
    expect(retried.status).toBe(202);
    expect(retried.body).toEqual({ stored: false, exits: [] });
    expect(await contactOf()).toEqual(contact);
    expect(await membershipsOf(contact!.id)).toEqual([{ key: listKey, subscribed: true }]);
  }, 120_000);

  it('an email-only event without lists, committed by an api that died before writing its contact: the retry writes the contact', async () => {
    const email = `crash-${randomUUID().slice(0, 8)}@Example.com`;
    const key = `${KILL_AFTER_COMMIT}${randomUUID()}`;
    const contactOf = () => contactByAddress(email);

    await postToDyingApi({ name: 'newsletter.joined', email }, key);
    await eventByKey(key);
    expect(await contactOf()).toBeUndefined();

    const retried = await retry({ name: 'newsletter.joined', email }, key);
    expect(retried.body).toEqual({ stored: false, exits: [] });
    expect(await contactOf()).toMatchObject({ externalId: null });
  }, 120_000);
});
