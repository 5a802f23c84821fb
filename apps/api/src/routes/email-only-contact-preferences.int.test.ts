import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSendGate } from '@waymark/core/preferences/send-gate';
import { uniqueAddress } from '../../../../test/email-emulator';
import { emailOnlyContactOf, firstEmailTo, oneClickUnsubscribe, preferenceRowsOf } from '../../../../test/email-only-contact';
import { issueApiKey, startTestApi, type TestApi } from '../../../../test/test-api';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

/**
 * docs/email.md, "Admin": an email-only contact's preferences, read and written through the admin
 * plane, are the rows its sends use: those keyed by its lower-cased address as user id (the user
 * id of its events, so of its sends, their unsubscribe tokens and their bounces).
 */
describe('email-only contact preferences', () => {
  let api: TestApi;
  let ingestKey: string;
  let adminKey: string;
  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY });
    ingestKey = await issueApiKey(api, LEGACY, 'email-only-ingest', ['ingest']);
    adminKey = await issueApiKey(api, LEGACY, 'email-only-admin', ['full-admin']);
  });
  afterAll(() => api?.close());

  const rowsOf = (address: string) => preferenceRowsOf(api.deps.db, address).select(['userId', 'unsubscribedAll', 'categories']).execute();
  const preferencesOf = (contactId: string) => api.request('GET', `/v1/admin/contacts/${contactId}/preferences`, { token: adminKey });
  const putPreferences = (contactId: string, body: unknown) => api.request('PUT', `/v1/admin/contacts/${contactId}/preferences`, { token: adminKey, body });

  /** An email-only sign-up, its welcome email, then the recipient's one-click unsubscribe from its List-Unsubscribe header. */
  async function signUpAndUnsubscribe(email: string): Promise<void> {
    const event = await api.request('POST', '/v1/events', { token: ingestKey, body: { name: 'user.signed_up', email, eventProperties: { firstName: 'Ada' } } });
    expect(event.status, event.text).toBe(202);
    expect(await oneClickUnsubscribe(api, await firstEmailTo(email, 'the welcome email in the SES emulator'))).toBe(200);
  }

  it('the admin plane shows the unsubscribe of an email-only contact, and its PUT edits the row the send gate reads', async () => {
    const email = uniqueAddress('Only-Email-Unsub');
    const address = email.toLowerCase();
    await signUpAndUnsubscribe(email);
    expect(await checkSendGate(api.deps.db, email, 'journey')).toEqual({ allowed: false, reason: 'category_unsubscribed' });

    const contact = await emailOnlyContactOf(api.deps.db, email);
    const read = await preferencesOf(contact.id);
    expect(read.status, read.text).toBe(200);
    expect(read.body.preferences).toMatchObject({ userId: address, unsubscribedAll: false, categories: { journey: false } });
    const detail = await api.request('GET', `/v1/admin/contacts/${contact.id}`, { token: adminKey });
    expect(detail.body.preferences).toMatchObject({ userId: address, categories: { journey: false } });

    // an operator re-subscribes the person: the unsubscribe's own row changes, and the gate follows
    const resubscribed = await putPreferences(contact.id, { categories: { journey: true } });
    expect(resubscribed.status, resubscribed.text).toBe(200);
    expect(resubscribed.body).toMatchObject({ id: read.body.preferences.id, userId: address, categories: { journey: true } });
    expect(await rowsOf(email)).toEqual([{ userId: address, unsubscribedAll: false, categories: { journey: true } }]);
    expect(await checkSendGate(api.deps.db, email, 'journey')).toEqual({ allowed: true });

    // and unsubscribes them from everything: still the one row, and a send to the address is refused
    expect((await putPreferences(contact.id, { unsubscribedAll: true })).status).toBe(200);
    expect(await rowsOf(email)).toEqual([{ userId: address, unsubscribedAll: true, categories: { journey: true } }]);
    const sent = await api.request('POST', '/v1/emails', {
      token: ingestKey,
      body: { templateKey: 'welcome', to: email, data: { firstName: 'Ada' } },
      headers: { 'idempotency-key': randomUUID() },
    });
    expect(sent.status, sent.text).toBe(202);
    expect(sent.body).toMatchObject({ status: 'skipped', reason: 'unsubscribed_all' });
    expect((await preferencesOf(contact.id)).body.preferences).toMatchObject({ userId: address, unsubscribedAll: true });
  });

  it("a contact keyed by userId shows and edits the rows its address's email-only events wrote, while no other contact holds the address", async () => {
    const email = uniqueAddress('Both-Keys-Unsub');
    const address = email.toLowerCase();
    const userId = `u-${randomUUID()}`;
    const created = await api.request('POST', '/v1/contacts', { token: ingestKey, body: { userId, email } });
    expect(created.status, created.text).toBe(200);
    // the email-only sign-up takes this contact (the latest seen of the address); its send and unsubscribe are keyed by the address
    await signUpAndUnsubscribe(email);
    expect(await rowsOf(email)).toEqual([{ userId: address, unsubscribedAll: false, categories: { journey: false } }]);
    expect(await checkSendGate(api.deps.db, email, 'journey')).toEqual({ allowed: false, reason: 'category_unsubscribed' });

    const read = await preferencesOf(created.body.contact.id);
    expect(read.status, read.text).toBe(200);
    expect(read.body.preferences).toMatchObject({ userId: address, categories: { journey: false } });
    const resubscribed = await putPreferences(created.body.contact.id, { categories: { journey: true } });
    expect(resubscribed.status, resubscribed.text).toBe(200);
    expect(await rowsOf(email)).toEqual([{ userId: address, unsubscribedAll: false, categories: { journey: true } }]);
    expect(await checkSendGate(api.deps.db, email, 'journey')).toEqual({ allowed: true });
  });

  it('a contact whose address changed: the admin plane reads and writes the rows of its current address, which the send gate reads', async () => {
    const userId = `u-${randomUUID()}`;
    const before = uniqueAddress('Moved-From');
    const after = uniqueAddress('Moved-To');
    const created = await api.request('POST', '/v1/contacts', { token: ingestKey, body: { userId, email: before } });
    expect((await putPreferences(created.body.contact.id, { unsubscribedAll: true })).status).toBe(200);
    // the product tells Waymark the person's new address
    expect((await api.request('POST', '/v1/events', { token: ingestKey, body: { name: 'profile.updated', userId, email: after } })).status).toBe(202);

    // the old address's row is not what the gate reads for the contact now
    expect(await checkSendGate(api.deps.db, after, 'journey')).toEqual({ allowed: true });
    expect((await preferencesOf(created.body.contact.id)).status).toBe(404);
    const unsubscribed = await putPreferences(created.body.contact.id, { unsubscribedAll: true });
    expect(unsubscribed.status, unsubscribed.text).toBe(200);
    expect(unsubscribed.body).toMatchObject({ email: after, unsubscribedAll: true });
    expect(await checkSendGate(api.deps.db, after, 'journey')).toEqual({ allowed: false, reason: 'unsubscribed_all' });
  });

  it('an admin PUT before the first send keys the row as the sends do: the later unsubscribe lands on it', async () => {
    const email = uniqueAddress('Only-Email-Early');
    const address = email.toLowerCase();
    const created = await api.request('POST', '/v1/contacts', { token: ingestKey, body: { email } });
    expect(created.status, created.text).toBe(200);
    const early = await putPreferences(created.body.contact.id, { categories: { newsletter: false } });
    expect(early.status, early.text).toBe(200);
    expect(early.body).toMatchObject({ userId: address, categories: { newsletter: false } });

    await signUpAndUnsubscribe(email);
    expect(await rowsOf(email)).toEqual([{ userId: address, unsubscribedAll: false, categories: { newsletter: false, journey: false } }]);
    expect((await preferencesOf(created.body.contact.id)).body.preferences).toMatchObject({
      id: early.body.id,
      categories: { newsletter: false, journey: false },
    });
  });

  it('rows an earlier version left under both keys: the admin plane reads them as the gate does and a PUT sets both', async () => {
    const email = uniqueAddress('Only-Email-Legacy');
    const address = email.toLowerCase();
    const created = await api.request('POST', '/v1/contacts', { token: ingestKey, body: { email } });
    expect(created.status, created.text).toBe(200);
    // an admin PUT used to write the row with no user id, beside the row the sends' unsubscribe wrote
    await api.deps.db
      .insertInto('emailPreferences')
      .values([
        { email, userId: null, categories: JSON.stringify({ journey: true }) },
        { email, userId: address, unsubscribedAll: true, categories: JSON.stringify({ newsletter: false }) },
      ])
      .execute();
    expect((await preferencesOf(created.body.contact.id)).body.preferences).toMatchObject({
      unsubscribedAll: true,
      categories: { journey: true, newsletter: false },
    });

    expect((await putPreferences(created.body.contact.id, { unsubscribedAll: false, categories: { newsletter: true } })).status).toBe(200);
    expect(await rowsOf(email)).toEqual([
      { userId: address, unsubscribedAll: false, categories: { newsletter: true } },
      { userId: null, unsubscribedAll: false, categories: { journey: true, newsletter: true } },
    ]);
    expect(await checkSendGate(api.deps.db, email, 'newsletter')).toEqual({ allowed: true });
  });

  it('a contact whose external id is the address keeps its row: the email-only contact of that address gets a row of its own', async () => {
    const email = uniqueAddress('only-email-literal');
    const emailOnly = await api.request('POST', '/v1/contacts', { token: ingestKey, body: { email } });
    const literal = await api.request('POST', '/v1/contacts', { token: ingestKey, body: { userId: email, email } });
    expect(literal.status, literal.text).toBe(200);
    expect((await putPreferences(literal.body.contact.id, { categories: { newsletter: false } })).status).toBe(200);
    expect((await preferencesOf(emailOnly.body.contact.id)).status).toBe(404);

    const own = await putPreferences(emailOnly.body.contact.id, { unsubscribedAll: true });
    expect(own.status, own.text).toBe(200);
    expect(own.body).toMatchObject({ userId: null, unsubscribedAll: true, categories: {} });
    expect(await rowsOf(email)).toEqual([
      { userId: email, unsubscribedAll: false, categories: { newsletter: false } },
      { userId: null, unsubscribedAll: true, categories: {} },
    ]);
    expect((await preferencesOf(literal.body.contact.id)).body.preferences).toMatchObject({ userId: email, unsubscribedAll: false });
  });
});
