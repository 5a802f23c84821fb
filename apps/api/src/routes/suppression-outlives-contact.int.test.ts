import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordComplaint, recordHardBounce } from '@waymark/core/preferences/suppression';
import { checkSendGate } from '@waymark/core/preferences/send-gate';
import { journeyWorkflowId } from '@waymark/temporal/journey-workflow-id';
import { eventually } from '../../../../test/eventually';
import { emailsTo, uniqueAddress } from '../../../../test/email-emulator';
import { emailOnlyContactOf, firstEmailTo, oneClickUnsubscribe, preferenceRowsOf } from '../../../../test/email-only-contact';
import { issueApiKey, startTestApi, type TestApi } from '../../../../test/test-api';
import { sendOfEmail } from '../../../../test/send-of-email';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

/**
 * docs/email.md, "Suppression outlives the contact": deleting or erasing a contact removes its
 * preferences (a re-created contact's preferences are a 404) but keeps the address's bounce,
 * complaint or global unsubscribe as a hash, and every send path refuses the address.
 */
describe('suppression outlives the contact', () => {
  let api: TestApi;
  let ingestKey: string;
  let adminKey: string;
  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY });
    ingestKey = await issueApiKey(api, LEGACY, 'suppression-ingest', ['ingest']);
    adminKey = await issueApiKey(api, LEGACY, 'suppression-admin', ['full-admin']);
  });
  afterAll(() => api?.close());

  const signUp = (userId: string, email: string) =>
    api.request('POST', '/v1/events', { token: ingestKey, body: { name: 'user.signed_up', userId, email, eventProperties: { firstName: 'Ada' } } });

  /** The welcome-series run of this person's latest sign-up: its result, once Temporal has it. */
  async function welcomeRun(userId: string) {
    const event = await api.deps.db
      .selectFrom('events')
      .select(['id', 'occurredAt'])
      .where('userId', '=', userId)
      .where('event', '=', 'user.signed_up')
      .orderBy('occurredAt', 'desc')
      .executeTakeFirstOrThrow();
    const workflowId = journeyWorkflowId({ journeyId: 'welcome-series', userId, trigger: { event: 'user.signed_up', eventId: event.id, occurredAt: '' } });
    return eventually(
      async () => {
        try {
          return (await api.deps.temporal.client.workflow.getHandle(workflowId).result()) as unknown;
        } catch {
          return undefined;
        }
      },
      (result) => result !== undefined,
      { timeoutMs: 60_000, what: `the run ${workflowId}` },
    );
  }

  const contactOf = (userId: string) => api.deps.db.selectFrom('contacts').selectAll().where('externalId', '=', userId).executeTakeFirst();

  it('erase a bounced contact: a new event, a broadcast and POST /v1/emails to the address are all refused as suppressed, and explain says why', async () => {
    const email = uniqueAddress('kept-bounce');
    const userId = `u-${randomUUID()}`;
    expect((await api.request('POST', '/v1/contacts', { token: ingestKey, body: { userId, email } })).status).toBe(200);
    for (let bounce = 0; bounce < api.config.email.bounceThreshold; bounce++) {
      await recordHardBounce(api.deps.db, { email, userId, threshold: api.config.email.bounceThreshold });
    }
    expect(await checkSendGate(api.deps.db, email, 'journey')).toEqual({ allowed: false, reason: 'suppressed' });

    const contact = (await contactOf(userId))!;
    const erased = await api.request('DELETE', `/v1/contacts/${contact.id}`, { token: ingestKey });
    expect(erased.status, erased.text).toBe(200);
    expect(await api.deps.db.selectFrom('emailPreferences').select('id').where('email', '=', email).execute()).toEqual([]);
    // what is kept is no personal data: a hash, the reason and the time
    const kept = await api.deps.db.selectFrom('addressSuppressions').selectAll().execute();
    expect(kept.filter((row) => JSON.stringify(row).includes(email))).toEqual([]);
    expect(await checkSendGate(api.deps.db, email.toUpperCase(), 'journey')).toEqual({ allowed: false, reason: 'suppressed' });

    // the same person signs up again: the contact is re-created, its preferences are a 404, and no journey email goes out
    expect((await signUp(userId, email)).status).toBe(202);
    const again = (await contactOf(userId))!;
    expect((await api.request('GET', `/v1/admin/contacts/${again.id}/preferences`, { token: adminKey })).status).toBe(404);
    expect(await welcomeRun(userId)).toEqual({ outcome: 'skipped', reason: 'suppressed' });
    const explained = await api.request('GET', `/v1/admin/contacts/${again.id}/explain?journeyId=welcome-series&templateKey=welcome`, { token: adminKey });
    expect(explained.status).toBe(200);
    expect(explained.body.explanation.notEnrolled).toMatch(
      /^not entered: the address is suppressed \(it bounced on .+, kept after a contact with this address was deleted\)$/,
    );

    // POST /v1/emails: skipped as suppressed, even for a required category
    for (const templateKey of ['welcome', 'order-receipt']) {
      const sent = await api.request('POST', '/v1/emails', {
        token: ingestKey,
        body: { templateKey, to: email, userId, data: { orderId: 'A-1', items: [{ name: 'Seat', quantity: 1, price: 5 }], firstName: 'Ada' } },
        headers: { 'idempotency-key': randomUUID() },
      });
      expect(sent.status, sent.text).toBe(202);
      expect(sent.body).toMatchObject({ status: 'skipped', reason: 'suppressed' });
    }

    // a broadcast to a list holding the re-created contact skips it as suppressed
    const listKey = `kept-${randomUUID().slice(0, 8)}`;
    const list = await api.deps.db.insertInto('lists').values({ key: listKey, name: listKey }).returning('id').executeTakeFirstOrThrow();
    await api.deps.db.insertInto('listMemberships').values({ listId: list.id, contactId: again.id, subscribed: true, updatedAt: new Date() }).execute();
    const created = await api.request('POST', '/v1/admin/broadcasts', {
      token: adminKey,
      body: { name: listKey, templateKey: 'reengage-we-miss-you', category: 'newsletter', audience: { listKey }, data: { productName: 'Atlas' } },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.broadcast.id as string;
    expect((await api.request('POST', `/v1/admin/broadcasts/${id}/send`, { token: adminKey })).status).toBe(202);
    const done = await eventually(
      async () => (await api.request('GET', `/v1/admin/broadcasts/${id}`, { token: adminKey })).body.broadcast,
      (broadcast) => broadcast?.status === 'sent',
      { timeoutMs: 60_000, what: 'the broadcast sent' },
    );
    expect(done.stats).toMatchObject({ sent: 0, skipped: { suppressed: 1 } });
    expect(await emailsTo(email)).toEqual([]);

    // an operator who lifts the re-created contact's suppression lifts the kept one too
    expect((await api.request('PUT', `/v1/admin/contacts/${again.id}/preferences`, { token: adminKey, body: { suppressed: false } })).status).toBe(200);
    expect(await checkSendGate(api.deps.db, email, 'journey')).toEqual({ allowed: true });
  });

  /** The preference rows of an address, as (user id, what they say); the rows of every contact of it. */
  const rowsOf = (address: string) => preferenceRowsOf(api.deps.db, address).select(['userId', 'suppressed', 'categories']).execute();

  /** Both ways a contact goes: the data plane's erasure (which also removes its events) and the admin delete. */
  const removals: [path: string, token: () => string, removesEvents: boolean][] = [
    ['/v1/contacts', () => ingestKey, true],
    ['/v1/admin/contacts', () => adminKey, false],
  ];
  const eventsOf = (userIds: string[]) =>
    api.deps.db.selectFrom('events').select(['userId', 'event']).where('userId', 'in', userIds).orderBy('event').execute();

  /**
   * The welcome email an email-only event sent to `email`: its send's user id is the lower-cased
   * address (an email-only event's, so its unsubscribe token's too), and the recipient's one-click
   * unsubscribe, then bounces up to the threshold, land on the row of that user id.
   */
  async function unsubscribeAndBounceWelcome(email: string): Promise<void> {
    const message = await firstEmailTo(email, 'the welcome email in the SES emulator');
    const send = await sendOfEmail(api.deps.db, message);
    expect(send.userId).toBe(email.toLowerCase());
    expect(await oneClickUnsubscribe(api, message)).toBe(200);
    for (let bounce = 0; bounce < api.config.email.bounceThreshold; bounce++) {
      await recordHardBounce(api.deps.db, { email: send.toEmail, userId: send.userId, threshold: api.config.email.bounceThreshold });
    }
  }

  /** After the contact went: the bounce is kept only as the address's hash, and the next send to it is refused. */
  async function expectBounceKeptAsHash(email: string): Promise<void> {
    const kept = await api.deps.db.selectFrom('addressSuppressions').selectAll().execute();
    expect(kept.filter((row) => JSON.stringify(row).toLowerCase().includes(email.toLowerCase()))).toEqual([]);
    expect(await checkSendGate(api.deps.db, email, 'journey')).toEqual({ allowed: false, reason: 'suppressed' });
    const again = await api.request('POST', '/v1/emails', {
      token: ingestKey,
      body: { templateKey: 'welcome', to: email, data: { firstName: 'Ada' } },
      headers: { 'idempotency-key': randomUUID() },
    });
    expect(again.status, again.text).toBe(202);
    expect(again.body).toMatchObject({ status: 'skipped', reason: 'suppressed' });
    expect(await emailsTo(email)).toHaveLength(1);
  }

  it.each(removals)(
    'DELETE %s/{id} of an email-only contact: its rows keyed by the address as user id go too, a send to the address is still refused, another contact of it keeps its row',
    async (path, token) => {
      const email = uniqueAddress('Kept-Email-Only');
      const address = email.toLowerCase();
      const event = await api.request('POST', '/v1/events', {
        token: ingestKey,
        body: { name: 'user.signed_up', email, eventProperties: { firstName: 'Ada' } },
      });
      expect(event.status, event.text).toBe(202);
      await unsubscribeAndBounceWelcome(email);
      // another contact of the same address, with an external id: its row is its own
      const otherId = `u-${randomUUID()}`;
      const other = await api.request('POST', '/v1/admin/contacts', { token: adminKey, body: { externalId: otherId, email } });
      expect(other.status, other.text).toBe(201);
      const otherPreferences = await api.request('PUT', `/v1/admin/contacts/${other.body.contact.id}/preferences`, {
        token: adminKey,
        body: { categories: { newsletter: false } },
      });
      expect(otherPreferences.status, otherPreferences.text).toBe(200);
      expect(await rowsOf(email)).toEqual([
        { userId: address, suppressed: true, categories: { journey: false } },
        { userId: otherId, suppressed: false, categories: { newsletter: false } },
      ]);

      const contact = await emailOnlyContactOf(api.deps.db, email);
      const erased = await api.request('DELETE', `${path}/${contact.id}`, { token: token() });
      expect(erased.status, erased.text).toBe(200);
      // no row keyed by the erased contact's address is left; the other contact's row is untouched
      expect(await rowsOf(email)).toEqual([{ userId: otherId, suppressed: false, categories: { newsletter: false } }]);
      await expectBounceKeptAsHash(email);
    },
  );

  it.each(removals)(
    'DELETE %s/{id} of a contact with an external id and an address: the rows of its email-only events, keyed by the address as user id, go too; a send to the address is still refused',
    async (path, token, removesEvents) => {
      const email = uniqueAddress('Kept-Both-Keys');
      const address = email.toLowerCase();
      const userId = `u-${randomUUID()}`;
      const keyed = await api.request('POST', '/v1/events', { token: ingestKey, body: { name: 'session.started', userId, email } });
      expect(keyed.status, keyed.text).toBe(202);
      // an email-only event of the address: its user id is the address, and its upsert takes the contact above
      const emailOnly = await api.request('POST', '/v1/events', {
        token: ingestKey,
        body: { name: 'user.signed_up', email, eventProperties: { firstName: 'Ada' } },
      });
      expect(emailOnly.status, emailOnly.text).toBe(202);
      await unsubscribeAndBounceWelcome(email);
      const contacts = await api.deps.db
        .selectFrom('contacts')
        .select(['id', 'externalId'])
        .where(sql`lower(email)`, '=', address)
        .execute();
      expect(contacts).toEqual([{ id: expect.any(String), externalId: userId }]);
      expect(await eventsOf([userId, address])).toEqual([
        { userId, event: 'session.started' },
        { userId: address, event: 'user.signed_up' },
      ]);
      expect(await rowsOf(email)).toEqual([{ userId: address, suppressed: true, categories: { journey: false } }]);

      const erased = await api.request('DELETE', `${path}/${contacts[0]!.id}`, { token: token() });
      expect(erased.status, erased.text).toBe(200);
      // an erasure removed the events under both keys, and no preference row keyed by the address is left
      expect(erased.body).toEqual(removesEvents ? { deleted: true, eventsDeleted: 2 } : { deleted: true });
      expect(await eventsOf([userId, address])).toHaveLength(removesEvents ? 0 : 2);
      expect(await rowsOf(email)).toEqual([]);
      await expectBounceKeptAsHash(email);
    },
  );

  it.each(removals)(
    "DELETE %s/{id} of a contact with an external id and an address another contact still holds: the rows keyed by the address are that one's, and stay until it goes",
    async (path, token, removesEvents) => {
      const email = uniqueAddress('Shared-Both-Keys');
      const address = email.toLowerCase();
      const userId = `u-${randomUUID()}`;
      // the address's email-only contact first, then a contact with an external id and the same address
      const holder = await api.request('POST', '/v1/contacts', { token: ingestKey, body: { email } });
      expect(holder.status, holder.text).toBe(200);
      expect((await api.request('POST', '/v1/events', { token: ingestKey, body: { name: 'session.started', userId, email } })).status).toBe(202);
      expect((await api.request('POST', '/v1/events', { token: ingestKey, body: { name: 'pricing.viewed', email } })).status).toBe(202);
      const contact = (await contactOf(userId))!;
      // each contact's own preference row: the holder's keyed by the address, the other's by its external id
      for (const id of [holder.body.contact.id as string, contact.id]) {
        const edited = await api.request('PUT', `/v1/admin/contacts/${id}/preferences`, { token: adminKey, body: { categories: { newsletter: false } } });
        expect(edited.status, edited.text).toBe(200);
      }
      expect(await rowsOf(email)).toEqual([
        { userId: address, suppressed: false, categories: { newsletter: false } },
        { userId, suppressed: false, categories: { newsletter: false } },
      ]);

      const erased = await api.request('DELETE', `${path}/${contact.id}`, { token: token() });
      expect(erased.status, erased.text).toBe(200);
      expect(erased.body).toEqual(removesEvents ? { deleted: true, eventsDeleted: 1 } : { deleted: true });
      expect(await rowsOf(email)).toEqual([{ userId: address, suppressed: false, categories: { newsletter: false } }]);
      expect(await eventsOf([userId, address])).toEqual([
        { userId: address, event: 'pricing.viewed' },
        ...(removesEvents ? [] : [{ userId, event: 'session.started' }]),
      ]);

      // the holder goes too: now the address's rows go with it
      expect((await api.request('DELETE', `${path}/${holder.body.contact.id}`, { token: token() })).status).toBe(200);
      expect(await rowsOf(email)).toEqual([]);
      expect(await eventsOf([address])).toHaveLength(removesEvents ? 0 : 1);
    },
  );

  it('deleting an email-only contact leaves the rows of a contact whose external id is that address', async () => {
    const email = uniqueAddress('kept-literal-id');
    const emailOnly = await api.request('POST', '/v1/contacts', { token: ingestKey, body: { email } });
    expect(emailOnly.status, emailOnly.text).toBe(200);
    const literal = await api.request('POST', '/v1/contacts', { token: ingestKey, body: { userId: email, email } });
    expect(literal.status, literal.text).toBe(200);
    expect(literal.body.contact.id).not.toBe(emailOnly.body.contact.id);
    const unsubscribed = await api.request('PUT', `/v1/admin/contacts/${literal.body.contact.id}/preferences`, {
      token: adminKey,
      body: { categories: { newsletter: false } },
    });
    expect(unsubscribed.status, unsubscribed.text).toBe(200);

    expect((await api.request('DELETE', `/v1/admin/contacts/${emailOnly.body.contact.id}`, { token: adminKey })).status).toBe(200);
    expect(await rowsOf(email)).toEqual([{ userId: email, suppressed: false, categories: { newsletter: false } }]);
  });

  it('admin delete keeps a complaint and a global unsubscribe; a required category still reaches an unsubscribed address; the preference center shows it and a resubscribe lifts it', async () => {
    const complained = uniqueAddress('kept-complaint');
    const unsubscribed = uniqueAddress('kept-unsub');
    for (const [email, action] of [
      [complained, 'complaint'],
      [unsubscribed, 'unsubscribe'],
    ] as const) {
      const userId = `u-${randomUUID()}`;
      const made = await api.request('POST', '/v1/admin/contacts', { token: adminKey, body: { externalId: userId, email } });
      expect(made.status, made.text).toBe(201);
      const contactId = made.body.contact.id as string;
      if (action === 'complaint') await recordComplaint(api.deps.db, { email, userId });
      else
        expect((await api.request('PUT', `/v1/admin/contacts/${contactId}/preferences`, { token: adminKey, body: { unsubscribedAll: true } })).status).toBe(
          200,
        );
      expect((await api.request('DELETE', `/v1/admin/contacts/${contactId}`, { token: adminKey })).status).toBe(200);
    }
    expect(await checkSendGate(api.deps.db, complained, 'journey')).toEqual({ allowed: false, reason: 'suppressed' });
    expect(await checkSendGate(api.deps.db, unsubscribed, 'journey')).toEqual({ allowed: false, reason: 'unsubscribed_all' });
    expect(await checkSendGate(api.deps.db, unsubscribed, api.deps.categories.find('transactional')!)).toEqual({ allowed: true });

    // the address's preference center says so, and its holder can take it back
    const token = await api.deps.email.tokens.sign({ externalId: '', email: unsubscribed, action: 'unsubscribe' });
    const center = await api.request('GET', `/v1/email/preferences?token=${token}`);
    expect(center.text).toContain('unsubscribed from all emails');
    const resubscribe = await api.deps.email.tokens.sign({ externalId: '', email: unsubscribed, action: 'resubscribe' });
    expect((await api.request('POST', `/v1/email/unsubscribe?token=${resubscribe}`)).status).toBe(200);
    expect(await checkSendGate(api.deps.db, unsubscribed, 'journey')).toEqual({ allowed: true });
    // a complaint is never lifted from a page
    expect(await checkSendGate(api.deps.db, complained, 'journey')).toEqual({ allowed: false, reason: 'suppressed' });
  });
});
