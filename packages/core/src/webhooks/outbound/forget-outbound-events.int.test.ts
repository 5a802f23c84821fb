import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useScratchDatabase } from '../../../../../test/scratch-database';
import { subscribeOutboxEndpoint } from '../../../../../test/webhook-endpoints';
import { eraseContact } from '../../contact-removal/remove-contact';
import { outboundEventTypes } from '../../outbox/event-types';
import { fanOutOutboundEvents } from './outbound-dispatch';
import { parkWebhookDelivery, WEBHOOK_DELIVERY_DLQ_SOURCE } from './webhook-deliveries';

/**
 * docs/operations.md, "Contacts": an erasure deletes the outbound webhook events about the person
 * once delivered or given up (with the dead letters a Retry would send them again with), and keeps
 * the ones still on their way. In a database of this file's own: no other test's endpoint takes
 * these events, and no dispatcher delivers them.
 */
describe('an erasure and the outbound webhook events about the person', () => {
  const scratch = useScratchDatabase();

  it('delivered and given-up events go (dead letter too), one still on its way and the erasure’s contact.deleted stay; another person’s stay', async () => {
    const db = scratch.db();
    await subscribeOutboxEndpoint(db, [...outboundEventTypes]);
    const userId = `forget-${randomUUID()}`;
    const email = `forget-${randomUUID().slice(0, 8)}@example.com`;
    const otherId = `kept-${randomUUID()}`;
    // contact.created of each
    await db
      .insertInto('contacts')
      .values([
        { externalId: userId, email, properties: JSON.stringify({ firstName: 'Ada' }) },
        { externalId: otherId, email: `kept-${randomUUID().slice(0, 8)}@example.com` },
      ])
      .execute();
    // email.sent of a send to the address without a user id: theirs too (by `to`)
    await db
      .insertInto('emailSends')
      .values({ templateKey: 'welcome', toEmail: email.toUpperCase(), fromEmail: 'from@example.com', data: '{}', status: 'sent', sentAt: new Date() })
      .execute();
    const all = await db.selectFrom('outboundEvents').select(['id', 'event', 'payload']).orderBy('createdAt').orderBy('id').execute();
    await fanOutOutboundEvents(
      db,
      all.map((row) => row.id),
    );
    const deliveryOf = async (eventId: string) =>
      db.selectFrom('webhookDeliveries').select('id').where('outboundEventId', '=', eventId).executeTakeFirstOrThrow();
    const find = (event: string, who: string) => all.find((row) => row.event === event && JSON.stringify(row.payload).includes(who))!;
    const created = find('contact.created', userId);
    const sent = find('email.sent', email.toUpperCase());
    const otherCreated = find('contact.created', otherId);
    // delivered; given up into the DLQ; the other person's delivered
    await db
      .updateTable('webhookDeliveries')
      .set({ status: 'succeeded', deliveredAt: new Date() })
      .where('id', '=', (await deliveryOf(created.id)).id)
      .execute();
    const parked = await parkWebhookDelivery(db, { deliveryId: (await deliveryOf(sent.id)).id, error: 'HTTP 500' });
    await db
      .updateTable('webhookDeliveries')
      .set({ status: 'succeeded', deliveredAt: new Date() })
      .where('id', '=', (await deliveryOf(otherCreated.id)).id)
      .execute();
    // contact.updated after the fan-out: on its way
    await db
      .updateTable('contacts')
      .set({ properties: JSON.stringify({ firstName: 'Ada', plan: 'pro' }) })
      .where('externalId', '=', userId)
      .execute();
    const updated = await db.selectFrom('outboundEvents').select('id').where('event', '=', 'contact.updated').executeTakeFirstOrThrow();
    await fanOutOutboundEvents(db, [updated.id]);

    const erased = await eraseContact(db, userId);
    expect(erased.webhookEventsDeleted).toBe(2);

    const left = await db.selectFrom('outboundEvents').select(['id', 'event', 'payload']).execute();
    const leftIds = left.map((row) => row.id);
    expect(leftIds).not.toContain(created.id);
    expect(leftIds).not.toContain(sent.id);
    expect(leftIds).toContain(updated.id);
    expect(leftIds).toContain(otherCreated.id);
    expect(left.filter((row) => row.event === 'contact.deleted').map((row) => row.payload)).toEqual([expect.objectContaining({ userId, email })]);
    expect(await db.selectFrom('dlqEntries').select('id').where('id', '=', parked!).execute()).toEqual([]);
    expect(await db.selectFrom('dlqEntries').select('id').where('source', '=', WEBHOOK_DELIVERY_DLQ_SOURCE).execute()).toEqual([]);
  });
});
