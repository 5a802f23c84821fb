import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROADCAST_CHUNK_SIZE } from '@waymark/core/broadcasts/broadcast-chunk';
import { duringFirstChunk } from '../../../../../test/during-first-chunk';
import { eventually } from '../../../../../test/eventually';
import { emailsToAny, header } from '../../../../../test/email-emulator';
import { startTestApi, type TestApi } from '../../../../../test/test-api';
import { subscribeOutboxEndpoint } from '../../../../../test/webhook-endpoints';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

/**
 * Broadcasts over the real api, PostgreSQL, the integration setup's Temporal worker and the SES
 * emulator. Each test has contacts and a list of its own (addresses carry a run tag), so the
 * shared emulator store and the database's other contacts never count.
 */
describe('/v1/admin/broadcasts', () => {
  let api: TestApi;
  let readKey: string;
  let adminKey: string;

  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY });
    readKey = (await api.request('POST', '/v1/admin/api-keys', { token: LEGACY, body: { name: 'broadcasts-read', scopes: ['read'] } })).body.key;
    adminKey = (await api.request('POST', '/v1/admin/api-keys', { token: LEGACY, body: { name: 'broadcasts-admin', scopes: ['journey-admin'] } })).body.key;
  });
  afterAll(() => api?.close());

  /** A list of `n` new contacts (`firstName` in their properties); `withoutEmail` of them have no address. */
  async function listOf(n: number, options: { withoutEmail?: number } = {}) {
    const run = randomUUID().slice(0, 8);
    const db = api.deps.db;
    const listKey = `bc-${run}`;
    const list = await db
      .insertInto('lists')
      .values({ key: listKey, name: `Broadcast ${run}` })
      .returning('id')
      .executeTakeFirstOrThrow();
    const contacts = await db
      .insertInto('contacts')
      .values(
        Array.from({ length: n }, (_, i) => ({
          externalId: `bc-${run}-${i}`,
          email: i < (options.withoutEmail ?? 0) ? null : `bc-${run}-${i}@waymark-test.example`,
          properties: JSON.stringify({ firstName: `Reader${i}` }),
          firstSeenAt: new Date(),
          lastSeenAt: new Date(),
          createdAt: new Date(),
          updatedAt: new Date(),
        })),
      )
      .returning(['id', 'email', 'externalId'])
      .execute();
    await db
      .insertInto('listMemberships')
      .values(contacts.map((contact) => ({ listId: list.id, contactId: contact.id, subscribed: true, updatedAt: new Date() })))
      .execute();
    const addresses = contacts.flatMap((contact) => (contact.email === null ? [] : [contact.email]));
    return { listKey, contacts, addresses };
  }

  async function create(body: Record<string, unknown>) {
    const answer = await api.request('POST', '/v1/admin/broadcasts', { token: adminKey, body });
    expect(answer.status, answer.text).toBe(201);
    return answer.body.broadcast as { id: string; status: string };
  }

  const newsletter = (listKey: string, extra: Record<string, unknown> = {}) => ({
    name: `Newsletter ${randomUUID().slice(0, 8)}`,
    templateKey: 'reengage-we-miss-you',
    category: 'newsletter',
    audience: { listKey },
    data: { productName: 'Atlas' },
    ...extra,
  });

  async function finished(id: string, statuses: readonly string[] = ['sent']) {
    return eventually(
      async () => (await api.request('GET', `/v1/admin/broadcasts/${id}`, { token: readKey })).body.broadcast,
      (broadcast) => statuses.includes(broadcast?.status),
      { timeoutMs: 90_000, what: `broadcast ${id} ${statuses.join('|')}` },
    );
  }

  /** A newsletter to the list, sent, and `transition` (pause, cancel) asked while its first chunk is in flight. */
  async function transitionMidSend(list: { listKey: string; addresses: readonly string[] }, transition: 'pause' | 'cancel') {
    const broadcast = await create(newsletter(list.listKey));
    const path = `/v1/admin/broadcasts/${broadcast.id}`;
    const answer = await duringFirstChunk(api.deps.db, {
      broadcastId: broadcast.id,
      emails: list.addresses,
      send: async () => expect((await api.request('POST', `${path}/send`, { token: adminKey })).status).toBe(202),
      transition: () => api.request('POST', `${path}/${transition}`, { token: adminKey }),
    });
    return { broadcast, path, answer };
  }

  async function sendsOf(id: string) {
    return api.deps.db.selectFrom('emailSends').select(['toEmail', 'status']).where('broadcastId', '=', id).execute();
  }

  it('sends a list of 50 one email each, skipping and counting every reason, and a retried send does not double', async () => {
    const { listKey, addresses } = await listOf(50, { withoutEmail: 1 });
    const db = api.deps.db;
    const [unsubAll1, unsubAll2, categoryOnly, suppressed1, suppressed2, otherCategory] = addresses;
    await db
      .insertInto('emailPreferences')
      .values([
        { email: unsubAll1!, unsubscribedAll: true, categories: '{}' },
        { email: unsubAll2!, unsubscribedAll: true, categories: '{}' },
        { email: categoryOnly!, categories: JSON.stringify({ newsletter: false }) },
        { email: suppressed1!, suppressed: true, suppressionReason: 'bounce', categories: '{}' },
        { email: suppressed2!, suppressed: true, suppressionReason: 'complaint', categories: '{}' },
        // unsubscribed from another category only: still gets the newsletter
        { email: otherCategory!, categories: JSON.stringify({ 'product-updates': false }) },
      ])
      .execute();
    const unsubscribeOutbox = await subscribeOutboxEndpoint(db, ['email.sent']);
    const broadcast = await create(newsletter(listKey));
    expect(broadcast.status).toBe('draft');

    const sent = await api.request('POST', `/v1/admin/broadcasts/${broadcast.id}/send`, { token: adminKey });
    expect(sent.status, sent.text).toBe(202);
    expect(sent.body.broadcast.status).toBe('sending');
    // the client retries its send (a timeout, a double click): refused, nothing more is sent
    const retried = await api.request('POST', `/v1/admin/broadcasts/${broadcast.id}/send`, { token: adminKey });
    expect(retried.status).toBe(409);

    const done = await finished(broadcast.id);
    expect(done.audienceSize).toBe(50);
    expect(done.progress).toEqual({ done: 50, total: 50 });
    expect(done.stats.sent).toBe(44);
    expect(done.stats.failed).toBe(0);
    expect(done.stats.skipped).toEqual({ unsubscribed: 3, suppressed: 2, noEmail: 1, missingData: 0, frequencyCap: 0, holdout: 0 });

    const blocked = new Set([unsubAll1, unsubAll2, categoryOnly, suppressed1, suppressed2]);
    const eligible = addresses.filter((address) => !blocked.has(address));
    expect(eligible).toHaveLength(44);
    const rows = await sendsOf(broadcast.id);
    expect(rows.map((row) => row.toEmail).sort()).toEqual([...eligible].sort());
    const delivered = await eventually(
      () => emailsToAny(addresses),
      (emails) => emails.length >= 44,
      { what: '44 emails in the emulator' },
    );
    expect(delivered).toHaveLength(44);
    expect(new Set(delivered.map((email) => email.destination.to[0])).size).toBe(44);
    const first = delivered.find((email) => email.destination.to[0] === eligible[0])!;
    // firstName comes from the contact's property of that name; productName from data
    expect(first.body.html).toContain('Reader');
    expect(first.body.html).toContain('Atlas');
    expect(header(first, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
    expect(first.body.html).toContain('/v1/t/');

    const skipped = await api.request('GET', `/v1/admin/broadcasts/${broadcast.id}/recipients?status=skipped&limit=100`, { token: readKey });
    expect(skipped.status).toBe(200);
    expect(skipped.body.total).toBe(6);
    expect(skipped.body.recipients.map((recipient: { reason: string }) => recipient.reason).sort()).toEqual(
      ['no_email', 'suppressed', 'suppressed', 'unsubscribed', 'unsubscribed', 'unsubscribed'].sort(),
    );
    const sentRecipients = await api.request('GET', `/v1/admin/broadcasts/${broadcast.id}/recipients?status=sent&limit=1`, { token: readKey });
    expect(sentRecipients.body.total).toBe(44);
    expect(sentRecipients.body.recipients[0].emailId).toEqual(expect.any(String));

    // outbound email.* events name the broadcast
    const events = await sql<{ n: string }>`
      select count(*) as n from outbound_events where event = 'email.sent' and payload ->> 'broadcastId' = ${broadcast.id}`.execute(db);
    expect(Number(events.rows[0]!.n)).toBe(44);
    await unsubscribeOutbox();
  });

  it('skips a recipient still missing a required template prop as missing_data', async () => {
    const { listKey, contacts } = await listOf(3);
    const db = api.deps.db;
    // order-receipt needs orderId: two contacts have it as a property, one does not
    for (const contact of contacts.slice(0, 2))
      await db
        .updateTable('contacts')
        .set({ properties: JSON.stringify({ orderId: 'A-1042' }) })
        .where('id', '=', contact.id)
        .execute();
    const broadcast = await create({
      name: `Receipts ${randomUUID().slice(0, 8)}`,
      templateKey: 'order-receipt',
      category: 'newsletter',
      audience: { listKey },
      data: { items: [{ name: 'Seat', quantity: 1, price: 5 }] },
    });
    expect((await api.request('POST', `/v1/admin/broadcasts/${broadcast.id}/send`, { token: adminKey })).status).toBe(202);
    const done = await finished(broadcast.id);
    expect(done.stats.sent).toBe(2);
    expect(done.stats.skipped.missingData).toBe(1);
  });

  it('answers 400 naming an unknown category, template, list or template prop, and 403 without journey-admin', async () => {
    const { listKey } = await listOf(1);
    const bad = async (body: Record<string, unknown>) => api.request('POST', '/v1/admin/broadcasts', { token: adminKey, body: newsletter(listKey, body) });
    const category = await bad({ category: 'promotions' });
    expect(category.status).toBe(400);
    expect(category.body.error).toContain('promotions');
    const template = await bad({ templateKey: 'no-such-template' });
    expect(template.status).toBe(400);
    expect(template.body.error).toContain('no-such-template');
    const prop = await bad({ data: { productName: 'Atlas', couponCode: 'X' } });
    expect(prop.status).toBe(400);
    expect(prop.body.error).toContain('data.couponCode');
    const list = await bad({ audience: { listKey: 'no-such-list' } });
    expect(list.status).toBe(400);
    expect(list.body.error).toContain('no-such-list');
    const abWithoutVariants = await bad({ abTest: { testFraction: 0.2, metric: 'human_clicks', waitMinutes: 60 } });
    expect(abWithoutVariants.status).toBe(400);
    // a required category is for emails a person asked for: never a broadcast's, at create or patch
    const required = await bad({ category: 'transactional' });
    expect(required.status).toBe(400);
    expect(required.body.error).toContain("category: 'transactional' is a required category");
    const draft = await api.request('POST', '/v1/admin/broadcasts', { token: adminKey, body: newsletter(listKey) });
    expect(draft.status).toBe(201);
    const patched = await api.request('PATCH', `/v1/admin/broadcasts/${draft.body.broadcast.id}`, { token: adminKey, body: { category: 'transactional' } });
    expect(patched.status).toBe(400);
    expect(patched.body.error).toContain("'transactional' is a required category");
    const readOnly = await api.request('POST', '/v1/admin/broadcasts', { token: readKey, body: newsletter(listKey) });
    expect(readOnly.status).toBe(403);
  });

  it('reading broadcasts (their stats and goal chart included) needs the read scope: 401 without a key, 403 for an ingest key', async () => {
    const { listKey } = await listOf(1);
    const draft = await api.request('POST', '/v1/admin/broadcasts', { token: adminKey, body: newsletter(listKey) });
    expect(draft.status).toBe(201);
    const ingestKey = (await api.request('POST', '/v1/admin/api-keys', { token: LEGACY, body: { name: 'broadcasts-ingest', scopes: ['ingest'] } })).body.key;
    for (const path of ['/v1/admin/broadcasts', `/v1/admin/broadcasts/${draft.body.broadcast.id}`]) {
      const anonymous = await api.request('GET', path);
      expect(anonymous.status).toBe(401);
      expect(anonymous.body.error).toEqual(expect.any(String));
      expect((await api.request('GET', path, { token: ingestKey })).status).toBe(403);
      expect((await api.request('GET', path, { token: readKey })).status).toBe(200);
    }
  });

  it('a scheduled broadcast sends nothing before its time; 409 on every transition that does not exist', async () => {
    const { listKey, addresses } = await listOf(3);
    const segment = await api.request('POST', '/v1/admin/segments', {
      token: adminKey,
      body: { name: `bc-${randomUUID()}`, conditions: { type: 'list', list: listKey } },
    });
    expect(segment.status).toBe(201);
    const broadcast = await create(
      newsletter(listKey, { audience: { segmentId: segment.body.segment.id }, scheduledAt: new Date(Date.now() + 3_600_000).toISOString() }),
    );
    const path = `/v1/admin/broadcasts/${broadcast.id}`;
    expect((await api.request('POST', `${path}/pause`, { token: adminKey })).status).toBe(409);
    expect((await api.request('POST', `${path}/resume`, { token: adminKey })).status).toBe(409);
    expect((await api.request('POST', `${path}/cancel`, { token: adminKey })).status).toBe(409);

    const sent = await api.request('POST', `${path}/send`, { token: adminKey });
    expect(sent.status).toBe(202);
    expect(sent.body.broadcast.status).toBe('scheduled');
    expect((await api.request('PATCH', path, { token: adminKey, body: { name: 'Renamed' } })).status).toBe(409);
    expect((await api.request('DELETE', path, { token: adminKey })).status).toBe(409);
    expect((await api.request('POST', `${path}/send`, { token: adminKey })).status).toBe(409);
    expect((await api.request('POST', `${path}/resume`, { token: adminKey })).status).toBe(409);
    // its segment cannot go while it waits
    const deleteSegment = await api.request('DELETE', `/v1/admin/segments/${segment.body.segment.id}`, { token: adminKey });
    expect(deleteSegment.status).toBe(409);

    // the run is up and waiting on its timer: no snapshot, no email
    await eventually(
      () => api.deps.temporal.jobs.status('broadcast', broadcast.id),
      (status) => status === 'running',
    );
    const waiting = (await api.request('GET', path, { token: readKey })).body.broadcast;
    expect(waiting.status).toBe('scheduled');
    expect(waiting.audienceSize).toBeNull();
    expect(await sendsOf(broadcast.id)).toEqual([]);

    const paused = await api.request('POST', `${path}/pause`, { token: adminKey });
    expect(paused.status).toBe(200);
    expect(paused.body.broadcast.status).toBe('paused');
    const resumed = await api.request('POST', `${path}/resume`, { token: adminKey });
    expect(resumed.body.broadcast.status).toBe('scheduled');
    const cancelled = await api.request('POST', `${path}/cancel`, { token: adminKey });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.broadcast.status).toBe('cancelled');
    expect((await api.request('POST', `${path}/cancel`, { token: adminKey })).status).toBe(409);
    await eventually(
      () => api.deps.temporal.jobs.status('broadcast', broadcast.id),
      (status) => status === 'completed',
    );
    expect(await sendsOf(broadcast.id)).toEqual([]);
    expect(await emailsToAny(addresses)).toEqual([]);
    expect((await api.request('DELETE', `/v1/admin/segments/${segment.body.segment.id}`, { token: adminKey })).status).toBe(200);
  });

  // three chunks: pause and cancel wait for the chunk in flight, so a smaller audience would be sent whole first
  const SEVERAL_CHUNKS = 3 * BROADCAST_CHUNK_SIZE;

  it('pause then resume finishes with every recipient sent exactly once', async () => {
    const list = await listOf(SEVERAL_CHUNKS);
    const { broadcast, path, answer: paused } = await transitionMidSend(list, 'pause');
    expect(paused.status, paused.text).toBe(200);
    // pause answers after the chunk in flight: from here nothing is sent
    const atPause = (await sendsOf(broadcast.id)).length;
    expect(atPause).toBe(BROADCAST_CHUNK_SIZE);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect((await sendsOf(broadcast.id)).length).toBe(atPause);
    expect((await api.request('GET', path, { token: readKey })).body.broadcast.status).toBe('paused');

    expect((await api.request('POST', `${path}/resume`, { token: adminKey })).status).toBe(200);
    const done = await finished(broadcast.id);
    expect(done.stats.sent).toBe(SEVERAL_CHUNKS);
    const rows = await sendsOf(broadcast.id);
    expect(new Set(rows.map((row) => row.toEmail)).size).toBe(SEVERAL_CHUNKS);
    expect(rows).toHaveLength(SEVERAL_CHUNKS);
    const delivered = await eventually(
      () => emailsToAny(list.addresses),
      (emails) => emails.length >= SEVERAL_CHUNKS,
    );
    expect(delivered).toHaveLength(SEVERAL_CHUNKS);
  });

  it('a cancelled broadcast sends nothing more', async () => {
    const { broadcast, path, answer: cancelled } = await transitionMidSend(await listOf(SEVERAL_CHUNKS), 'cancel');
    expect(cancelled.status, cancelled.text).toBe(200);
    const atCancel = (await sendsOf(broadcast.id)).length;
    expect(atCancel).toBe(BROADCAST_CHUNK_SIZE);
    await eventually(
      () => api.deps.temporal.jobs.status('broadcast', broadcast.id),
      (status) => status === 'completed',
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await sendsOf(broadcast.id)).length).toBe(atCancel);
    const recipients = await api.request('GET', `${path}/recipients?status=pending`, { token: readKey });
    expect(recipients.body.total).toBe(0);
    // the first chunk's recipients were sent, or kept pending past the send rate (then cancelled)
    const cancelledRecipients = await api.request('GET', `${path}/recipients?status=cancelled`, { token: readKey });
    const final = (await api.request('GET', path, { token: readKey })).body.broadcast;
    expect(final.status).toBe('cancelled');
    expect(final.stats.sent).toBeLessThanOrEqual(BROADCAST_CHUNK_SIZE);
    expect(cancelledRecipients.body.total).toBe(SEVERAL_CHUNKS - final.stats.sent);
  });

  it('POST …/test sends a [Test] copy that is not counted', async () => {
    const { listKey } = await listOf(1);
    const broadcast = await create(newsletter(listKey, { subject: 'Our November news' }));
    const to = `bc-test-${randomUUID().slice(0, 8)}@waymark-test.example`;
    const answer = await api.request('POST', `/v1/admin/broadcasts/${broadcast.id}/test`, { token: adminKey, body: { emails: [to] } });
    expect(answer.status, answer.text).toBe(202);
    expect(answer.body.results).toEqual([{ email: to, status: 'sent', emailId: expect.any(String), reason: null }]);
    const [email] = await eventually(
      () => emailsToAny([to]),
      (emails) => emails.length === 1,
    );
    expect(email!.subject).toBe('[Test] Our November news');
    expect(await sendsOf(broadcast.id)).toEqual([]);
    const tooMany = await api.request('POST', `/v1/admin/broadcasts/${broadcast.id}/test`, {
      token: adminKey,
      body: { emails: Array.from({ length: 6 }, (_, i) => `x${i}@example.com`) },
    });
    expect(tooMany.status).toBe(400);
    // still a draft: it can be deleted
    expect((await api.request('DELETE', `/v1/admin/broadcasts/${broadcast.id}`, { token: adminKey })).status).toBe(200);
  });

  it('POST …/test answers an unreachable email provider per address, never as a database outage', async () => {
    const { listKey } = await listOf(1);
    const broadcast = await create(newsletter(listKey, { subject: 'Provider down' }));
    // an api on the same database whose SES endpoint refuses connections (a socket error, as a reset is)
    const cut = await startTestApi({ ADMIN_API_KEY: LEGACY, SES_ENDPOINT: 'http://127.0.0.1:9' });
    try {
      const to = `bc-down-${randomUUID().slice(0, 8)}@waymark-test.example`;
      const answer = await cut.request('POST', `/v1/admin/broadcasts/${broadcast.id}/test`, { token: adminKey, body: { emails: [to] } });
      expect(answer.status, answer.text).toBe(202);
      expect(answer.body.results).toEqual([
        // the code alone: the socket's own message would show the provider's address to the caller
        { email: to, status: 'failed', emailId: null, reason: 'The email provider could not be reached (ECONNREFUSED)' },
      ]);
    } finally {
      await cut.close();
    }
  });
});
