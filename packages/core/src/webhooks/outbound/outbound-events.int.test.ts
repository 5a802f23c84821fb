import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendEmail } from '../../emails/send-email';
import { uniqueAddress } from '../../../../../test/email-emulator';
import { startTestApi, type TestApi } from '../../../../../test/test-api';
import { subscribeOutboxEndpoint } from '../../../../../test/webhook-endpoints';
import { outboundEventTypes } from '../../outbox/event-types';
import { recordOutboundEvent } from '../../outbox/outbox';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

/** Every event type is written in the transaction of its fact, whichever path made the change. */
describe('outbound events: one outbox row per fact, while an endpoint subscribes', () => {
  let api: TestApi;
  let removeEndpoint: () => Promise<void>;
  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY });
    removeEndpoint = await subscribeOutboxEndpoint(api.deps.db, [...outboundEventTypes]);
  });
  afterAll(async () => {
    await removeEndpoint?.();
    await api?.close();
  });

  /** The outbox rows whose data mentions `marker`, oldest first, as [type, data]. */
  const outbox = async (marker: string) => {
    const rows = await api.deps.db
      .selectFrom('outboundEvents')
      .select(['event', 'payload'])
      .where(sql<boolean>`payload::text like ${`%${marker}%`}`)
      .orderBy('createdAt')
      .orderBy('id')
      .execute();
    return rows.map((row) => [row.event, row.payload] as const);
  };
  const types = async (marker: string) => (await outbox(marker)).map(([type]) => type);

  it('contact.created / updated / deleted from ingest and the admin API; an unchanged upsert emits nothing', async () => {
    const userId = `u-${randomUUID()}`;
    const ingest = (contactProperties: Record<string, unknown>) =>
      api.request('POST', '/v1/events', { token: LEGACY, body: { name: 'page.viewed', userId, email: `${userId}@example.com`, contactProperties } });
    expect((await ingest({ plan: 'free' })).status).toBe(202);
    expect((await ingest({ plan: 'free' })).status).toBe(202);
    expect((await ingest({ plan: 'pro' })).status).toBe(202);
    const patched = await api.request('PATCH', `/v1/admin/contacts/${userId}`, { token: LEGACY, body: { properties: { seats: 3 } } });
    expect(patched.status).toBe(200);
    expect((await api.request('DELETE', `/v1/admin/contacts/${userId}`, { token: LEGACY })).status).toBe(200);

    const rows = await outbox(userId);
    expect(rows.map(([type]) => type)).toEqual(['contact.created', 'contact.updated', 'contact.updated', 'contact.deleted']);
    expect(rows[0]![1]).toMatchObject({ userId, email: `${userId}@example.com`, properties: { plan: 'free' }, contactId: patched.body.id });
    expect(rows[2]![1]).toMatchObject({ properties: { plan: 'pro', seats: 3 } });
    expect(rows[3]![1]).toEqual({ contactId: patched.body.id, userId, email: `${userId}@example.com` });
  });

  it('email.sent, then delivered, opened, clicked, bounced, complained once each; email.failed with its error', async () => {
    const to = uniqueAddress('outbox');
    const sent = await sendEmail(api.deps.email, { templateKey: 'welcome', to, userId: `u-${randomUUID()}`, idempotencyKey: randomUUID() });
    expect(sent.status).toBe('sent');
    const id = sent.emailSendId!;
    const set = (values: Record<string, unknown>) => api.deps.db.updateTable('emailSends').set(values).where('id', '=', id).execute();
    await set({ deliveredAt: new Date(), status: 'delivered' });
    // a machine's hit sets only openedAt / clickedAt: the webhook waits for a person
    await set({ openedAt: new Date(), status: 'opened' });
    await set({ humanOpenedAt: new Date() });
    await set({ clickedAt: new Date(), status: 'clicked' });
    await set({ humanClickedAt: new Date() });
    await set({ updatedAt: new Date() });
    await set({ bouncedAt: new Date() });
    await set({ complainedAt: new Date() });
    await set({ status: 'failed', errorMessage: 'provider said no' });
    const rows = await outbox(to);
    expect(rows.map(([type]) => type)).toEqual([
      'email.sent',
      'email.delivered',
      'email.opened',
      'email.clicked',
      'email.bounced',
      'email.complained',
      'email.failed',
    ]);
    expect(rows[0]![1]).toMatchObject({ emailId: id, to, templateKey: 'welcome', category: 'journey' });
    expect(rows[6]![1]).toMatchObject({ emailId: id, error: 'provider said no' });
  });

  it('journey.enrolled (first entry and re-entry), then completed / exited / failed', async () => {
    const userId = `j-${randomUUID()}`;
    const insert = (journeyId: string) =>
      api.deps.db
        .insertInto('journeyStates')
        .values({ journeyId, userId, userEmail: `${userId}@example.com`, workflowId: `wf-${randomUUID()}`, context: '{}' })
        .returning('id')
        .executeTakeFirstOrThrow();
    const a = await insert('journey-a');
    const b = await insert('journey-b');
    const c = await insert('journey-c');
    const update = (stateId: string, values: Record<string, unknown>) =>
      api.deps.db.updateTable('journeyStates').set(values).where('id', '=', stateId).execute();
    await update(a.id, { status: 'waiting' });
    await update(a.id, { status: 'completed' });
    await update(a.id, { status: 'active', entryCount: 2 });
    await update(b.id, { status: 'exited' });
    await update(c.id, { status: 'failed', errorMessage: 'template missing' });
    const rows = await outbox(userId);
    expect(rows.map(([type, data]) => `${type}:${data.journeyId as string}`)).toEqual([
      'journey.enrolled:journey-a',
      'journey.enrolled:journey-b',
      'journey.enrolled:journey-c',
      'journey.completed:journey-a',
      'journey.enrolled:journey-a',
      'journey.exited:journey-b',
      'journey.failed:journey-c',
    ]);
    expect(rows[6]![1]).toMatchObject({ journeyStateId: c.id, userId, error: 'template missing', status: 'failed' });
  });

  it('contact.suppressed and contact.resubscribed from the preferences API; the suppression import stays quiet', async () => {
    const userId = `p-${randomUUID()}`;
    const email = uniqueAddress('outbox-prefs');
    await api.request('POST', '/v1/events', { token: LEGACY, body: { name: 'page.viewed', userId, email } });
    const put = (body: Record<string, unknown>) => api.request('PUT', `/v1/admin/contacts/${userId}/preferences`, { token: LEGACY, body });
    expect((await put({ unsubscribedAll: true, categories: { journey: false } })).status).toBe(200);
    expect((await put({ unsubscribedAll: false, categories: { journey: true } })).status).toBe(200);
    expect((await put({ suppressed: true })).status).toBe(200);
    expect((await put({ suppressed: true })).status).toBe(200);
    // rows of one transaction share created_at, so compare them as a sorted list
    const changes = (await outbox(email)).map(([type, data]) => `${type}:${String(data.category ?? data.reason ?? '-')}`);
    expect(changes.sort()).toEqual([
      'contact.created:-',
      'contact.resubscribed:-',
      'contact.resubscribed:journey',
      'contact.suppressed:manual',
      'contact.unsubscribed:-',
      'contact.unsubscribed:journey',
    ]);

    const quiet = uniqueAddress('outbox-quiet');
    const imported = await api.request('POST', '/v1/admin/suppressions/import', {
      token: LEGACY,
      body: { rows: [{ email: quiet }, { email: quiet, reason: 'bounced' }, { email: quiet, reason: 'complained' }] },
    });
    expect(imported.body).toMatchObject({ applied: 3 });
    expect(await types(quiet)).toEqual([]);
  });

  it('writes nothing for a type no enabled endpoint takes', async () => {
    const userId = `none-${randomUUID()}`;
    // inside a transaction that is rolled back, so other test files' endpoints stay as they are
    const rolledBack = new Error('roll back');
    await expect(
      api.deps.db.transaction().execute(async (trx) => {
        await trx.updateTable('webhookEndpoints').set({ enabled: false }).execute();
        await recordOutboundEvent(trx, 'contact.created', { userId });
        await trx.insertInto('contacts').values({ externalId: userId, properties: '{}' }).execute();
        const rows = await trx
          .selectFrom('outboundEvents')
          .select('id')
          .where(sql<boolean>`payload::text like ${`%${userId}%`}`)
          .execute();
        expect(rows).toEqual([]);
        throw rolledBack;
      }),
    ).rejects.toBe(rolledBack);
  });
});
