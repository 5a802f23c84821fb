import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../../../../test/test-api';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;
const HOUR = 60 * 60 * 1000;

/**
 * Issue 10 regressions: input PostgreSQL cannot store, or times that cannot be real, are a 400
 * naming the field, with nothing written and no driver text in any answer.
 */
describe('unstorable input is refused before any write', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY });
  });
  afterAll(() => api.close());

  const ingest = (body: unknown) => api.request('POST', '/v1/events', { token: LEGACY, body });
  const eventsOf = (userId: string) => api.deps.db.selectFrom('events').select('id').where('userId', '=', userId).execute();
  const contactOf = (userId: string) => api.deps.db.selectFrom('contacts').select('id').where('externalId', '=', userId).executeTakeFirst();

  it.each([
    ['a contactProperties value', (userId: string) => ({ name: 'x', userId, contactProperties: { plan: 'a\u0000b' } }), 'body.contactProperties.plan'],
    ['a contactProperties key', (userId: string) => ({ name: 'x', userId, contactProperties: { 'a\u0000b': 1 } }), 'body.contactProperties["a\\u0000b"]'],
    [
      'an eventProperties array item',
      (userId: string) => ({ name: 'x', userId, eventProperties: { tags: ['ok', 'a\u0000'] } }),
      'body.eventProperties.tags[1]',
    ],
    ['a lists key', (userId: string) => ({ name: 'x', userId, lists: { 'news\u0000': true } }), 'body.lists["news\\u0000"]'],
  ])('NUL in %s: 400 naming the field, no event and no contact stored', async (_what, body, field) => {
    const userId = `nul-${randomUUID()}`;
    const response = await ingest(body(userId));
    expect(response.status).toBe(400);
    expect(response.body.error).toContain(field);
    expect(response.body.error).not.toMatch(/byte sequence|unsupported Unicode|22P05|22021/);
    expect(await eventsOf(userId)).toEqual([]);
    expect(await contactOf(userId)).toBeUndefined();
  });

  it('NUL in a query string or path parameter of any route: 400 naming it', async () => {
    const query = await api.request('GET', `/v1/admin/audit-logs?actor=${encodeURIComponent('a\u0000')}`, { token: LEGACY });
    expect(query).toMatchObject({ status: 400, body: { error: expect.stringContaining('query.actor') } });
    const path = await api.request('GET', `/v1/admin/contacts/${encodeURIComponent('a\u0000')}`, { token: LEGACY });
    expect(path).toMatchObject({ status: 400, body: { error: expect.stringContaining('path.id') } });
  });

  it('a number that overflows to Infinity (1e400) is a 400, not a stored null', async () => {
    const userId = `inf-${randomUUID()}`;
    const response = await ingest(`{"name":"x","userId":"${userId}","eventProperties":{"big":1e400}}`);
    expect(response).toMatchObject({ status: 400, body: { error: expect.stringContaining('body.eventProperties.big must be a finite number') } });
    expect(await eventsOf(userId)).toEqual([]);
  });

  it.each([
    ['year 0000', '0000-01-01T00:00:00Z'],
    ['year 9999', '9999-12-31T23:59:59Z'],
    ['before 1970', '1969-12-31T23:59:59Z'],
    ['25 hours ahead', () => new Date(Date.now() + 25 * HOUR).toISOString()],
  ])('an event timestamp in %s is a 400 and stores nothing', async (_what, time) => {
    const userId = `ts-${randomUUID()}`;
    const response = await ingest({ name: 'x', userId, timestamp: typeof time === 'function' ? time() : time });
    expect(response).toMatchObject({ status: 400, body: { error: expect.stringContaining('timestamp must be between 1970-01-01') } });
    expect(await eventsOf(userId)).toEqual([]);
  });

  it('accepts the edges: the epoch itself and 23 hours ahead', async () => {
    for (const timestamp of ['1970-01-01T00:00:00Z', new Date(Date.now() + 23 * HOUR).toISOString()]) {
      const response = await ingest({ name: 'x', userId: `ts-${randomUUID()}`, timestamp });
      expect(response.status).toBe(202);
    }
  });
});
