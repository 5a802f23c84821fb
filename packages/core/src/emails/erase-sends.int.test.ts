import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useEmailDeps } from '../../../../test/email-deps';
import { signedSnsMessage } from '../../../../test/sns-signer';
import { listAddressSuppressions } from '../contacts/address-suppressions';
import { processSesNotification } from '../webhooks/email-provider/process-notification';
import { dieDuringProviderCall } from '../../../../test/dying-send';
import { emailsTo, uniqueAddress } from '../../../../test/email-emulator';
import { deleteContact, eraseContact } from '../contact-removal/remove-contact';
import { renderSentEmail } from '../templates/render-sent-email';
import { ERASED_BEFORE_SENDING, ERASED_SEND } from './erase-sends';
import { createQueuedSend } from './send-ledger';
import { sendEmail, type SendEmailInput } from './send-email';

/**
 * docs/operations.md, "Contacts": an erasure keeps the person's send records as delivery history
 * without what was rendered from their data, and nothing more is sent to them. Against PostgreSQL
 * and the SES emulator.
 */
describe("an erased person's sends: kept as delivery history, without their data, nothing more sent", () => {
  const deps = useEmailDeps();
  const rowOf = (id: string) => deps.db.selectFrom('emailSends').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const welcome = (to: string, userId: string | undefined): SendEmailInput => ({
    templateKey: 'welcome',
    to,
    idempotencyKey: randomUUID(),
    data: { firstName: 'Ada' },
    ...(userId === undefined ? {} : { userId }),
  });

  it('the sent ones lose their data and subject, the unsent one is cancelled; another person and a deleted contact keep theirs', async () => {
    const run = randomUUID();
    const userId = `erased-sends-${run}`;
    const to = uniqueAddress('erased-sends');
    await deps.db.insertInto('contacts').values({ externalId: userId, email: to }).execute();
    const sent = await sendEmail(deps.email, welcome(to, userId));
    // an email sent to the address without a user id (a caller's transactional send) was theirs too
    const userless = await sendEmail(deps.email, welcome(to.toUpperCase(), undefined));
    // not yet sent: its row is queued, as the send rate or a stopped worker leaves one
    const queuedInput = welcome(to, userId);
    const queued = await createQueuedSend(deps.email, queuedInput, 'product');
    // a send refused by the provider, quoting the address; a frequency-cap claim naming it
    const refused = await createQueuedSend(deps.email, welcome(to, userId), 'product');
    await deps.db
      .updateTable('emailSends')
      .set({ status: 'failed', errorMessage: `MessageRejected: ${to} is not verified` })
      .where('id', '=', refused.id)
      .execute();
    await deps.db
      .insertInto('deliveryCapClaims')
      .values({ idempotencyKey: randomUUID(), email: to.toLowerCase(), category: 'product', createdAt: new Date() })
      .execute();
    const otherTo = uniqueAddress('kept-sends');
    const other = await sendEmail(deps.email, welcome(otherTo, `kept-${run}`));
    expect([sent.status, userless.status, other.status]).toEqual(['sent', 'sent', 'sent']);
    const before = await rowOf(sent.emailSendId!);
    expect(before.subject).toContain('Ada');

    const erased = await eraseContact(deps.db, userId);
    expect(erased.sendsErased).toBe(4);
    expect(await rowOf(refused.id)).toMatchObject({ status: 'failed', errorMessage: '[erased]' });
    expect(await deps.db.selectFrom('deliveryCapClaims').select('email').where('email', '=', to.toLowerCase()).execute()).toEqual([]);

    const linksOf = (id: string) => deps.db.selectFrom('trackedLinks').select('originalUrl').where('emailSendId', '=', id).execute();
    for (const id of [sent.emailSendId!, userless.emailSendId!]) {
      const links = await linksOf(id);
      expect(links.length).toBeGreaterThan(0);
      for (const link of links) expect(link.originalUrl).toMatch(/^erased:[0-9a-f-]{36}$/);
      const row = await rowOf(id);
      expect(row).toMatchObject({ data: {}, subject: '', status: 'sent', providerMessageId: expect.any(String), templateKey: 'welcome' });
      expect(row.erasedAt).toBeInstanceOf(Date);
      expect(JSON.stringify(row)).not.toContain('Ada');
      await expect(renderSentEmail(deps.db, deps.email, id)).rejects.toMatchObject({ status: 404, message: ERASED_SEND });
    }
    expect(await rowOf(queued.id)).toMatchObject({ status: 'cancelled', errorMessage: ERASED_BEFORE_SENDING, data: {} });
    // the send path asked again for the queued one (its worker retrying): nothing goes out
    expect(await sendEmail(deps.email, queuedInput)).toEqual({ status: 'skipped', reason: ERASED_BEFORE_SENDING });
    expect(await emailsTo(to)).toHaveLength(2);

    const kept = await rowOf(other.emailSendId!);
    for (const link of await linksOf(kept.id)) expect(link.originalUrl).toMatch(/^https?:/);
    expect(kept).toMatchObject({ data: { firstName: 'Ada' }, erasedAt: null });
    expect((await renderSentEmail(deps.db, deps.email, kept.id)).html).toContain('Ada');

    // an admin delete is not an erasure: the sends keep their data
    const deletedId = `deleted-sends-${run}`;
    const deletedTo = uniqueAddress('deleted-sends');
    await deps.db.insertInto('contacts').values({ externalId: deletedId, email: deletedTo }).execute();
    const deletedSend = await sendEmail(deps.email, welcome(deletedTo, deletedId));
    await deleteContact(deps.db, deletedId);
    expect(await rowOf(deletedSend.emailSendId!)).toMatchObject({ data: { firstName: 'Ada' }, erasedAt: null });
  });

  it('a send whose outcome was unknown when its recipient was erased is never sent again, even where the policy would resend it', async () => {
    const userId = `erased-unknown-${randomUUID()}`;
    const to = uniqueAddress('erased-unknown');
    await deps.db.insertInto('contacts').values({ externalId: userId, email: to }).execute();
    const input = welcome(to, userId);
    // the attempt stops inside the provider call, before SES took the message: a delivery unknown
    await dieDuringProviderCall(deps.email, input, false);
    const claimed = await deps.db.selectFrom('emailSends').selectAll().where('idempotencyKey', '=', input.idempotencyKey).executeTakeFirstOrThrow();
    expect(claimed).toMatchObject({ status: 'rendered', providerMessageId: null, sendStartedAt: expect.any(Date) });
    const resending = {
      ...deps.email,
      delivery: { ...deps.email.delivery, policy: { ...deps.email.delivery.policy, unknown: { [claimed.category]: 'resend' as const } } },
    };

    await eraseContact(deps.db, userId);
    const retried = await sendEmail(resending, input);
    expect(retried).toMatchObject({ status: 'failed', dropped: true, reason: expect.stringContaining('its recipient has been erased') });
    expect(await deps.db.selectFrom('emailSends').select('status').where('id', '=', claimed.id).executeTakeFirstOrThrow()).toEqual({
      status: 'unknown_dropped',
    });
    expect(await emailsTo(to)).toHaveLength(0);
  });

  it.each([
    {
      kind: 'complaint',
      reason: 'complained',
      notification: (to: string) => ({ eventType: 'Complaint', complaint: { complainedRecipients: [{ emailAddress: to }] } }),
    },
    {
      kind: 'permanent bounce',
      reason: 'bounced',
      notification: (to: string) => ({ eventType: 'Bounce', bounce: { bounceType: 'Permanent', bouncedRecipients: [{ emailAddress: to }] } }),
    },
  ])('a $kind arriving after the erasure is honoured as a hash of the address, written back nowhere in clear', async ({ reason, notification }) => {
    const userId = `erased-late-${randomUUID()}`;
    const to = uniqueAddress('erased-late');
    await deps.db.insertInto('contacts').values({ externalId: userId, email: to }).execute();
    const sent = await sendEmail(deps.email, welcome(to, userId));
    const { providerMessageId } = await rowOf(sent.emailSendId!);
    await eraseContact(deps.db, userId);

    const message = JSON.stringify({ ...notification(to), mail: { messageId: providerMessageId, destination: [to], timestamp: new Date().toISOString() } });
    expect(await processSesNotification(deps.db, signedSnsMessage({ Message: message }), { bounceThreshold: 3, isRequired: () => false })).toMatchObject({
      processed: true,
      emailSendId: sent.emailSendId,
    });
    expect(await deps.db.selectFrom('emailPreferences').select('id').where('email', 'ilike', to).execute()).toEqual([]);
    expect(await deps.db.selectFrom('emailPreferences').select('id').where('userId', '=', userId).execute()).toEqual([]);
    expect((await listAddressSuppressions(deps.db, to)).map((kept) => kept.reason)).toEqual([reason]);
  });
});
