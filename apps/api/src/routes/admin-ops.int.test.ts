import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordDeadLetter } from '@waymark/core/dlq/dead-letters';
import { startTestApi, type TestApi } from '../../../../test/test-api';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;
const webhookRule = {
  name: 'bounces',
  type: 'bounce_rate_exceeded',
  threshold: 0.05,
  channel: 'webhook',
  channelConfig: { url: 'https://hooks.example.com/a' },
};

describe('alerts, DLQ, metrics and the contacts/emails/lists data plane', () => {
  let api: TestApi;
  const keys: Record<string, string> = {};
  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY });
    for (const [name, scopes] of Object.entries({ read: ['read'], journeyAdmin: ['journey-admin'], ingest: ['ingest'], fullAdmin: ['full-admin'] })) {
      keys[name] = (await api.request('POST', '/v1/admin/api-keys', { token: LEGACY, body: { name: `ops-${name}`, scopes } })).body.key;
    }
  });
  afterAll(() => api.close());

  describe('alert rules', () => {
    it('creates (cooldown default 60), lists, patches, deletes; 404 afterwards', async () => {
      const created = await api.request('POST', '/v1/admin/alerts/rules', { token: LEGACY, body: webhookRule });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ ...webhookRule, cooldownMinutes: 60, enabled: true, lastTriggeredAt: null });
      const listed = await api.request('GET', '/v1/admin/alerts/rules', { token: LEGACY });
      expect(listed.body.rules.map((rule: { id: string }) => rule.id)).toContain(created.body.id);
      const patched = await api.request('PATCH', `/v1/admin/alerts/rules/${created.body.id}`, {
        token: LEGACY,
        body: { channel: 'chat', channelConfig: { webhookUrl: 'https://hooks.slack.com/services/x', channel: '#ops' }, cooldownMinutes: 5 },
      });
      expect(patched).toMatchObject({
        status: 200,
        body: { channel: 'chat', channelConfig: { webhookUrl: 'https://hooks.slack.com/services/x', channel: '#ops' }, cooldownMinutes: 5 },
      });
      expect(await api.request('DELETE', `/v1/admin/alerts/rules/${created.body.id}`, { token: LEGACY })).toMatchObject({
        status: 200,
        body: { deleted: true },
      });
      expect(await api.request('DELETE', `/v1/admin/alerts/rules/${created.body.id}`, { token: LEGACY })).toMatchObject({
        status: 404,
        body: { error: 'Alert rule not found' },
      });
      expect((await api.request('PATCH', `/v1/admin/alerts/rules/${created.body.id}`, { token: LEGACY, body: { name: 'x' } })).status).toBe(404);
    });

    it.each([
      ['unknown type', { ...webhookRule, type: 'cpu_high' }],
      ['unknown channel', { ...webhookRule, channel: 'pager' }],
      ['webhook without url', { ...webhookRule, channelConfig: {} }],
      ['webhook with a non-http url', { ...webhookRule, channelConfig: { url: 'ftp://x.example.com' } }],
      ['chat without webhookUrl', { ...webhookRule, channel: 'chat', channelConfig: { url: 'https://x.example.com' } }],
      ['email with a bad address', { ...webhookRule, channel: 'email', channelConfig: { to: 'nope' } }],
      ['a rate threshold above 1', { ...webhookRule, threshold: 5 }],
      ['a negative cooldown', { ...webhookRule, cooldownMinutes: -1 }],
      ['a missing name', { ...webhookRule, name: undefined }],
    ])('POST with %s → 400', async (_name, body) => {
      const response = await api.request('POST', '/v1/admin/alerts/rules', { token: LEGACY, body });
      expect(response.status).toBe(400);
      expect(typeof response.body.error).toBe('string');
    });

    it('PATCH to a channel without a matching config → 400', async () => {
      const created = await api.request('POST', '/v1/admin/alerts/rules', { token: LEGACY, body: webhookRule });
      expect((await api.request('PATCH', `/v1/admin/alerts/rules/${created.body.id}`, { token: LEGACY, body: { channel: 'email' } })).status).toBe(400);
    });

    it('history lists newest first, filters by ruleId, paginates', async () => {
      const rule = await api.request('POST', '/v1/admin/alerts/rules', { token: LEGACY, body: webhookRule });
      await api.deps.db
        .insertInto('alertHistory')
        .values([
          {
            ruleId: rule.body.id,
            ruleName: 'bounces',
            type: 'bounce_rate_exceeded',
            currentValue: 0.1,
            threshold: 0.05,
            channel: 'webhook',
            delivered: true,
            triggeredAt: new Date(Date.now() - 60_000),
          },
          {
            ruleId: rule.body.id,
            ruleName: 'bounces',
            type: 'bounce_rate_exceeded',
            currentValue: 0.2,
            threshold: 0.05,
            channel: 'webhook',
            delivered: false,
            triggeredAt: new Date(),
          },
        ])
        .execute();
      const history = await api.request('GET', `/v1/admin/alerts/history?ruleId=${rule.body.id}&limit=1`, { token: LEGACY });
      expect(history.body).toMatchObject({ total: 2, limit: 1, offset: 0 });
      expect(history.body.alerts[0]).toMatchObject({ ruleId: rule.body.id, currentValue: 0.2, delivered: false, channel: 'webhook' });
      expect((await api.request('GET', '/v1/admin/alerts/history?ruleId=nope', { token: LEGACY })).status).toBe(400);
    });

    it('scopes: read and journey-admin cannot create rules or read them', async () => {
      for (const key of [keys.read, keys.journeyAdmin, keys.ingest]) {
        expect(await api.request('POST', '/v1/admin/alerts/rules', { token: key, body: webhookRule })).toMatchObject({
          status: 403,
          body: { error: 'Insufficient scope' },
        });
        expect((await api.request('GET', '/v1/admin/alerts/rules', { token: key })).status).toBe(403);
      }
    });
  });

  describe('dead-letter queue', () => {
    it('lists with source/status filters; retry re-ingests an event; a second retry is 409; discard', async () => {
      const userId = `dlq-${randomUUID()}`;
      const id = await recordDeadLetter(api.deps.db, {
        source: 'webhook',
        sourceId: null,
        payload: { name: 'dlq.replayed', userId, eventProperties: { n: 1 } },
        error: 'boom',
      });
      const listed = await api.request('GET', '/v1/admin/dlq?source=webhook&status=pending&limit=100', { token: LEGACY });
      expect(listed.body.entries.find((entry: { id: string }) => entry.id === id)).toMatchObject({
        source: 'webhook',
        status: 'pending',
        retryCount: 0,
        retriedAt: null,
        error: 'boom',
      });

      const retried = await api.request('POST', `/v1/admin/dlq/${id}/retry`, { token: keys.fullAdmin });
      expect(retried).toMatchObject({ status: 200, body: { id, status: 'retried', retriedAt: expect.any(String) } });
      const event = await api.deps.db.selectFrom('events').selectAll().where('userId', '=', userId).executeTakeFirst();
      expect(event).toMatchObject({ event: 'dlq.replayed', properties: { n: 1 } });
      expect(await api.request('POST', `/v1/admin/dlq/${id}/retry`, { token: LEGACY })).toMatchObject({ status: 409 });
      expect((await api.request('DELETE', `/v1/admin/dlq/${id}`, { token: LEGACY })).status).toBe(409);

      const other = await recordDeadLetter(api.deps.db, { source: 'email', sourceId: null, payload: {}, error: 'x' });
      expect(await api.request('DELETE', `/v1/admin/dlq/${other}`, { token: LEGACY })).toMatchObject({ status: 200, body: { id: other, status: 'discarded' } });
      expect((await api.request('POST', `/v1/admin/dlq/${other}/retry`, { token: LEGACY })).status).toBe(409);
      const discarded = await api.request('GET', '/v1/admin/dlq?status=discarded&limit=100', { token: LEGACY });
      expect(discarded.body.entries.map((entry: { id: string }) => entry.id)).toContain(other);
      const audit = await api.request('GET', '/v1/admin/audit-logs?resource=dlq&limit=100', { token: LEGACY });
      expect(audit.body.logs.map((log: { resourceId: string; action: string }) => [log.action, log.resourceId])).toEqual(
        expect.arrayContaining([
          ['replay', id],
          ['delete', other],
        ]),
      );
    });

    it('retrying a payload that is not retryable → 409 (an entry state, not a bad request) and the entry stays pending', async () => {
      const id = await recordDeadLetter(api.deps.db, { source: 'event', sourceId: null, payload: { nothing: true }, error: 'x' });
      expect((await api.request('POST', `/v1/admin/dlq/${id}/retry`, { token: LEGACY })).status).toBe(409);
      const row = await api.deps.db.selectFrom('dlqEntries').select('status').where('id', '=', id).executeTakeFirstOrThrow();
      expect(row.status).toBe('pending');
    });

    it('404 for unknown entries, 400 for bad ids and filters, 403 below full-admin', async () => {
      expect(await api.request('POST', `/v1/admin/dlq/${randomUUID()}/retry`, { token: LEGACY })).toMatchObject({
        status: 404,
        body: { error: 'DLQ entry not found' },
      });
      expect((await api.request('DELETE', `/v1/admin/dlq/${randomUUID()}`, { token: LEGACY })).status).toBe(404);
      expect((await api.request('POST', '/v1/admin/dlq/nope/retry', { token: LEGACY })).status).toBe(400);
      expect((await api.request('GET', '/v1/admin/dlq?status=lost', { token: LEGACY })).status).toBe(400);
      for (const key of [keys.read, keys.journeyAdmin]) {
        expect((await api.request('POST', `/v1/admin/dlq/${randomUUID()}/retry`, { token: key })).status).toBe(403);
        expect((await api.request('GET', '/v1/admin/dlq', { token: key })).status).toBe(403);
      }
    });
  });

  describe('metrics', () => {
    it('counts events, journeys and emails in the window with rates', async () => {
      // a private window in the past: other test files write events and sends "now" at the same time
      const now = new Date(Date.UTC(2003, 0, 1) + Math.floor(Math.random() * 1e9));
      const from = new Date(now.getTime() - 1_000).toISOString();
      await api.deps.db
        .insertInto('events')
        .values({ userId: `m-${randomUUID()}`, event: 'metric.test', properties: '{}', occurredAt: now })
        .execute();
      await api.deps.db
        .insertInto('emailSends')
        .values([
          {
            templateKey: 't',
            fromEmail: 'f@x.io',
            toEmail: 'a@x.io',
            status: 'delivered',
            createdAt: now,
            sentAt: now,
            deliveredAt: now,
            openedAt: now,
            humanOpenedAt: now,
          },
          // opened by a machine only (a scanner fetched the pixel): figures count people
          { templateKey: 't', fromEmail: 'f@x.io', toEmail: 'b@x.io', status: 'bounced', createdAt: now, sentAt: now, bouncedAt: now, openedAt: now },
        ])
        .execute();
      const to = new Date(now.getTime() + 1_000).toISOString();
      const metrics = await api.request('GET', `/v1/admin/metrics?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`, { token: keys.read });
      expect(metrics.status).toBe(200);
      expect(metrics.body.events.ingested).toBe(1);
      expect(metrics.body.emails).toMatchObject({
        sent: 2,
        delivered: 1,
        opened: 1,
        bounced: 1,
        rates: { delivery: 0.5, bounce: 0.5, open: 0.5, complaint: 0 },
      });
      expect(metrics.body.journeys).toEqual({
        entered: expect.any(Number),
        completed: expect.any(Number),
        failed: expect.any(Number),
        exited: expect.any(Number),
      });
      const empty = await api.request('GET', '/v1/admin/metrics?from=2001-01-01T00:00:00Z&to=2001-01-02T00:00:00Z', { token: keys.read });
      expect(empty.body.emails).toMatchObject({ sent: 0, rates: { delivery: null } });
      expect((await api.request('GET', '/v1/admin/metrics', { token: keys.read })).status).toBe(200);
    });

    it('carries the shared send budget: unlimited against the emulator (no GetAccount, no SES_MAX_SEND_RATE), in both metrics endpoints', async () => {
      const metrics = await api.request('GET', '/v1/admin/metrics', { token: keys.read });
      expect(metrics.body.sendRate).toMatchObject({ limitPerSecond: null, source: 'none', currentPerSecond: null, waiting: 0, fallback: false });
      const text = (await api.request('GET', '/v1/metrics', { token: keys.read })).text;
      expect(text).toContain('waymark_send_rate_limit_per_second{source="none"} 0');
      expect(text).toContain('waymark_send_rate_fallback 0');
      expect(text).toMatch(/^waymark_send_rate_waiting 0$/m);
    });

    it('400 for bad windows; ingest-only → 403', async () => {
      expect((await api.request('GET', '/v1/admin/metrics?from=yesterday', { token: LEGACY })).status).toBe(400);
      expect((await api.request('GET', '/v1/admin/metrics?from=2024-02-02T00:00:00Z&to=2024-01-01T00:00:00Z', { token: LEGACY })).status).toBe(400);
      expect((await api.request('GET', '/v1/admin/metrics', { token: keys.ingest })).status).toBe(403);
    });

    it('serves Prometheus text on /v1/metrics to a read key', async () => {
      const scrape = await api.request('GET', '/v1/metrics', { token: keys.read });
      expect(scrape.status).toBe(200);
      expect(scrape.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(scrape.text).toMatch(/^# HELP waymark_info/m);
      expect(scrape.text).toMatch(/^process_resident_memory_bytes \d+$/m);
      expect(scrape.text).toMatch(/^waymark_dlq_pending_entries \d+$/m);
      expect(scrape.text).toMatch(/^waymark_journey_starts_pending \d+$/m);
      expect((await api.request('GET', '/v1/metrics')).status).toBe(401);
      expect((await api.request('GET', '/v1/metrics', { token: keys.ingest })).status).toBe(403);
    });
  });

  describe('data plane', () => {
    it('POST /v1/contacts upserts by userId (idempotent), merges properties, sets lists; GET reads it', async () => {
      const userId = `dp-${randomUUID()}`;
      const first = await api.request('POST', '/v1/contacts', {
        token: keys.ingest,
        body: { userId, email: 'dp@example.com', properties: { plan: 'free' }, lists: { news: true } },
      });
      expect(first.status).toBe(200);
      const second = await api.request('POST', '/v1/contacts', { token: keys.ingest, body: { userId, properties: { seats: 3 } } });
      expect(second.body.contact).toMatchObject({
        id: first.body.contact.id,
        externalId: userId,
        email: 'dp@example.com',
        properties: { plan: 'free', seats: 3 },
      });
      const read = await api.request('GET', `/v1/contacts/${userId}`, { token: keys.ingest });
      expect(read.body.contact.id).toBe(first.body.contact.id);
      const membership = await api.deps.db
        .selectFrom('listMemberships')
        .innerJoin('lists', 'lists.id', 'listMemberships.listId')
        .select(['key', 'subscribed'])
        .where('contactId', '=', first.body.contact.id)
        .execute();
      expect(membership).toEqual([{ key: 'news', subscribed: true }]);
      const byEmail = await api.request('POST', '/v1/contacts', { token: keys.ingest, body: { email: `only-${randomUUID().slice(0, 6)}@example.com` } });
      expect(byEmail.body.contact.externalId).toBeNull();
    });

    it('DELETE /v1/contacts/{id} erases contact, preferences and events, audited; then 404', async () => {
      const userId = `erase-${randomUUID()}`;
      const created = await api.request('POST', '/v1/contacts', { token: keys.ingest, body: { userId, email: 'erase@example.com' } });
      await api.deps.db
        .insertInto('events')
        .values([
          { userId, event: 'a', properties: '{}' },
          { userId, event: 'b', properties: '{}' },
        ])
        .execute();
      await api.deps.db.insertInto('emailPreferences').values({ userId, email: 'erase@example.com', categories: '{}' }).execute();
      expect(await api.request('DELETE', `/v1/contacts/${userId}`, { token: keys.ingest })).toMatchObject({
        status: 200,
        body: { deleted: true, eventsDeleted: 2 },
      });
      expect(await api.deps.db.selectFrom('events').select('id').where('userId', '=', userId).execute()).toEqual([]);
      expect(await api.deps.db.selectFrom('emailPreferences').select('id').where('userId', '=', userId).execute()).toEqual([]);
      expect(await api.request('GET', `/v1/contacts/${userId}`, { token: keys.ingest })).toMatchObject({ status: 404, body: { error: 'Contact not found' } });
      expect((await api.request('DELETE', `/v1/contacts/${userId}`, { token: keys.ingest })).status).toBe(404);
      const audit = await api.request('GET', '/v1/admin/audit-logs?resource=contact&action=delete&limit=100', { token: LEGACY });
      // the audit row says what was done, not to whom: the erased person's address and id are not kept
      expect(audit.body.logs.find((log: { resourceId: string }) => log.resourceId === created.body.contact.id).detail).toEqual({
        erasure: true,
        eventsDeleted: 2,
        runsExited: 0,
        effectsDropped: 0,
        runsDeleted: 0,
        parkedDeleted: 0,
        sendsErased: 0,
        webhookEventsDeleted: 0,
      });
    });

    it('no audit row names a person: a contact created, looked up by address in an export, enrolled, deleted and another erased are named by contact id only', async () => {
      const run = randomUUID().slice(0, 8);
      const people = ['deleted', 'erased'].map((who) => ({ externalId: `audit-${who}-${run}`, email: `audit-${who}-${run}@example.com` }));
      const contactIds: string[] = [];
      for (const person of people) {
        const created = await api.request('POST', '/v1/admin/contacts', { token: LEGACY, body: person });
        expect(created.status, created.text).toBe(201);
        contactIds.push(created.body.contact.id);
        const enrolled = await api.request('POST', '/v1/admin/journeys/trial-conversion/enroll', {
          token: LEGACY,
          body: { userId: person.externalId, userEmail: person.email, properties: { plan: 'free' } },
        });
        expect(enrolled.status, enrolled.text).toBe(202);
      }
      // an operator looks the first person up by their address before deleting them
      const exported = await api.request('GET', `/v1/admin/contacts/export?search=${encodeURIComponent(people[0]!.email)}`, { token: LEGACY });
      expect(exported.status, exported.text).toBe(200);
      expect(exported.text).toContain(contactIds[0]);
      expect((await api.request('DELETE', `/v1/admin/contacts/${contactIds[0]}`, { token: LEGACY })).status).toBe(200);
      expect((await api.request('DELETE', `/v1/contacts/${contactIds[1]}`, { token: keys.ingest })).status).toBe(200);

      const rows = await api.deps.db
        .selectFrom('auditLogs')
        .select(['action', 'resource', 'resourceId', 'detail'])
        .where('createdAt', '>', new Date(Date.now() - 60_000))
        .execute();
      const naming = rows.filter((row) =>
        people.some((person) => JSON.stringify(row).includes(person.externalId) || JSON.stringify(row).includes(person.email)),
      );
      expect(naming).toEqual([]);
      // each step is still there, named by the contact's id
      for (const [index, contactId] of contactIds.entries()) {
        expect(
          rows
            .filter((row) => row.resource === 'contact' && row.resourceId === contactId)
            .map((row) => row.action)
            .sort(),
          `contact ${index}`,
        ).toEqual(['create', 'delete']);
        expect(rows.some((row) => row.action === 'enroll' && (row.detail as { contactId?: string } | null)?.contactId === contactId)).toBe(true);
      }
      // the export is audited, saying only that it was filtered
      expect(rows.filter((row) => row.action === 'export').map((row) => row.detail)).toContainEqual({ format: 'json', limit: 10000, searched: true });
    });

    it("an enrolment's audit row names the enrolled person's contact, even when their user id is another contact's Waymark id", async () => {
      const run = randomUUID().slice(0, 8);
      const other = await api.request('POST', '/v1/admin/contacts', { token: LEGACY, body: { externalId: `audit-other-${run}` } });
      expect(other.status, other.text).toBe(201);
      // a product whose user ids are UUIDs: this person's id happens to be the other contact's
      const userId: string = other.body.contact.id;
      const enrolled = await api.request('POST', '/v1/admin/journeys/trial-conversion/enroll', {
        token: LEGACY,
        body: { userId, userEmail: `audit-uuid-${run}@example.com`, properties: { plan: 'free' } },
      });
      expect(enrolled.status, enrolled.text).toBe(202);
      // the ingest of the enrolment made the person's own contact, keyed by their user id
      const person = await api.deps.db.selectFrom('contacts').select('id').where('externalId', '=', userId).executeTakeFirstOrThrow();
      const rows = await api.deps.db
        .selectFrom('auditLogs')
        .select('detail')
        .where('action', '=', 'enroll')
        .where('createdAt', '>', new Date(Date.now() - 60_000))
        .execute();
      const named = rows.map((row) => (row.detail as { contactId?: string } | null)?.contactId);
      expect(named).toContain(person.id);
      expect(named).not.toContain(userId);
    });

    it('lists: create (409 on a duplicate key), list with counts, set memberships', async () => {
      const key = `list-${randomUUID().slice(0, 8)}`;
      const created = await api.request('POST', '/v1/lists', { token: keys.ingest, body: { key, name: 'Product news' } });
      expect(created).toMatchObject({ status: 201, body: { list: { key, name: 'Product news', description: null, subscribers: 0 } } });
      expect(await api.request('POST', '/v1/lists', { token: keys.ingest, body: { key, name: 'again' } })).toMatchObject({
        status: 409,
        body: { error: 'List with this key already exists' },
      });
      const userId = `member-${randomUUID()}`;
      const set = await api.request('POST', '/v1/lists/memberships', { token: keys.ingest, body: { userId, lists: { [key]: true } } });
      expect(set).toMatchObject({ status: 200, body: { lists: { [key]: true } } });
      const lists = await api.request('GET', '/v1/lists', { token: keys.ingest });
      expect(lists.body.lists.find((list: { key: string }) => list.key === key)).toMatchObject({ subscribers: 1 });
      await api.request('POST', '/v1/lists/memberships', { token: keys.ingest, body: { userId, lists: { [key]: false } } });
      expect((await api.request('GET', '/v1/lists', { token: keys.ingest })).body.lists.find((list: { key: string }) => list.key === key).subscribers).toBe(0);
    });

    it('POST /v1/emails validates: unknown template → 400, bad address → 400, no key needed fields → 400', async () => {
      expect((await api.request('POST', '/v1/emails', { token: keys.ingest, body: { templateKey: 'no-such-template', to: 'a@example.com' } })).status).toBe(
        400,
      );
      expect((await api.request('POST', '/v1/emails', { token: keys.ingest, body: { templateKey: 'order-receipt', to: 'nope' } })).status).toBe(400);
      expect((await api.request('POST', '/v1/emails', { token: keys.ingest, body: { to: 'a@example.com' } })).status).toBe(400);
    });

    it.each([
      ['POST', '/v1/contacts', {}],
      ['POST', '/v1/contacts', { userId: 'x', email: 'bad' }],
      ['POST', '/v1/lists', { key: 'has space', name: 'x' }],
      ['POST', '/v1/lists/memberships', { userId: 'x', lists: {} }],
      ['POST', '/v1/lists/memberships', { lists: { a: true } }],
    ])('%s %s with %j → 400', async (method, path, body) => {
      const response = await api.request(method, path, { token: keys.ingest, body });
      expect(response.status).toBe(400);
      expect(typeof response.body.error).toBe('string');
    });

    it('scopes: read and journey-admin keys cannot write the data plane; full-admin can', async () => {
      expect((await api.request('POST', '/v1/emails', { body: { templateKey: 'x', to: 'a@b.co' } })).status).toBe(401);
      for (const key of [keys.read, keys.journeyAdmin]) {
        expect((await api.request('POST', '/v1/contacts', { token: key, body: { userId: 'x' } })).status).toBe(403);
        expect((await api.request('POST', '/v1/emails', { token: key, body: { templateKey: 'x', to: 'a@b.co' } })).status).toBe(403);
        expect((await api.request('GET', '/v1/lists', { token: key })).status).toBe(403);
      }
      expect((await api.request('POST', '/v1/contacts', { token: keys.fullAdmin, body: { userId: `fa-${randomUUID()}` } })).status).toBe(200);
    });
  });
});
