import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { EmailTransport } from '@waymark/email/ses-transport';
import { deletePreferencesKeepingSuppression } from '../contacts/address-suppressions';
import { deliverJourneyEmail } from '../journeys/deliver-journey-email';
import { dieDuringProviderCall } from '../../../../test/dying-send';
import { useEmailDeps } from '../../../../test/email-deps';
import { emailsTo, uniqueAddress } from '../../../../test/email-emulator';
import { seedJourneyEmailStep } from '../../../../test/journey-states';
import type { EmailDeps } from './email-deps';
import { sendEmail, type SendEmailInput } from './send-email';

/**
 * A send retried under its idempotency key after an attempt that did not send it (a provider
 * error, a delivery unknown sent again) asks the send gate again (docs/email.md, "Exactly once"):
 * what the person became in between (suppressed, unsubscribed) wins, as on a first attempt. Against
 * PostgreSQL and the SES emulator; the failing attempt wraps the real transport.
 */
describe('a retried send asks the send gate again', () => {
  const deps = useEmailDeps();

  /** The provider refuses every call: the attempt releases its claim and throws, for the caller's retry. */
  const refusing: EmailTransport = { send: () => Promise.reject(new Error('SES: InternalFailure')) };
  const failOnce = async (input: SendEmailInput) => {
    await expect(sendEmail({ ...deps.email, transport: refusing }, input)).rejects.toThrow('InternalFailure');
  };
  const sendRow = (key: string) => deps.db.selectFrom('emailSends').selectAll().where('idempotencyKey', '=', key).executeTakeFirstOrThrow();
  const suppress = (to: string) =>
    deps.db
      .insertInto('emailPreferences')
      .values({ email: to, userId: null, categories: '{}', suppressed: true, suppressionReason: 'complained', suppressedAt: new Date() })
      .execute();

  it('a suppressed address is refused: skipped as on a first attempt, the row ends cancelled, nothing is sent, and a later call answers the same', async () => {
    const to = uniqueAddress('retry-suppressed');
    const input = { templateKey: 'welcome', to, idempotencyKey: randomUUID() };
    await failOnce(input);
    await suppress(to);

    expect(await sendEmail(deps.email, input)).toEqual({ status: 'skipped', reason: 'suppressed' });
    expect(await sendRow(input.idempotencyKey)).toMatchObject({
      status: 'cancelled',
      errorMessage: 'suppressed',
      sendStartedAt: null,
      providerMessageId: null,
    });
    expect(await sendEmail(deps.email, input)).toEqual({ status: 'skipped', reason: 'suppressed' });
    expect(await emailsTo(to)).toHaveLength(0);
  });

  it('an address suppression kept after its contact was deleted refuses the retry of a required category', async () => {
    const to = uniqueAddress('retry-kept');
    const input = { templateKey: 'welcome', to, idempotencyKey: randomUUID(), category: 'transactional' };
    await failOnce(input);
    await suppress(to);
    await deletePreferencesKeepingSuppression(deps.db, { id: randomUUID(), externalId: null, email: to });

    expect(await sendEmail(deps.email, input)).toEqual({ status: 'skipped', reason: 'suppressed' });
    expect(await emailsTo(to)).toHaveLength(0);
  });

  it('unsubscribed in between: refused for a category one may leave; a required one is still sent', async () => {
    const to = uniqueAddress('retry-unsubscribed');
    const journey = { templateKey: 'welcome', to, idempotencyKey: randomUUID() };
    const receipt = { templateKey: 'welcome', to, idempotencyKey: randomUUID(), category: 'transactional' };
    await failOnce(journey);
    await failOnce(receipt);
    await deps.db.insertInto('emailPreferences').values({ email: to, userId: null, categories: '{}', unsubscribedAll: true }).execute();

    expect(await sendEmail(deps.email, journey)).toEqual({ status: 'skipped', reason: 'unsubscribed_all' });
    expect(await sendRow(journey.idempotencyKey)).toMatchObject({ status: 'cancelled' });
    expect(await sendEmail(deps.email, receipt)).toMatchObject({ status: 'sent' });
    expect(await emailsTo(to)).toHaveLength(1);
  });

  it('a delivery unknown the policy sends again is refused once the address is suppressed', async () => {
    const to = uniqueAddress('retry-unknown');
    const input = { templateKey: 'welcome', to, idempotencyKey: randomUUID() };
    const resending: EmailDeps = { ...deps.email, delivery: { ...deps.email.delivery, policy: { caps: [], exempt: [], unknown: { journey: 'resend' } } } };
    await dieDuringProviderCall(deps.email, input, false);
    await suppress(to);

    expect(await sendEmail(resending, input)).toEqual({ status: 'skipped', reason: 'suppressed' });
    expect(await sendRow(input.idempotencyKey)).toMatchObject({ status: 'cancelled', sendStartedAt: null });
    expect(await emailsTo(to)).toHaveLength(0);
  });

  describe('by the journey email step (its gate read in its one statement on every attempt)', () => {
    const journeyStep = (to: string) => {
      const run = randomUUID();
      return seedJourneyEmailStep(deps.db, { journeyId: 'retry-journey', userId: `u-${run}`, to, run });
    };
    const logsOf = (stateId: string) =>
      deps.db.selectFrom('journeyLogs').select(['action', 'detail']).where('journeyStateId', '=', stateId).orderBy('id').execute();

    it('the activity retried after a provider error skips a now-suppressed address: email_skipped as on a first attempt, the row cancelled, nothing sent', async () => {
      const to = uniqueAddress('retry-journey');
      const step = await journeyStep(to);
      await expect(deliverJourneyEmail({ ...deps.email, transport: refusing }, step)).rejects.toThrow('InternalFailure');
      await suppress(to);

      expect(await deliverJourneyEmail(deps.email, step)).toEqual({ status: 'skipped', reason: 'suppressed' });
      expect(await logsOf(step.stateId)).toEqual([{ action: 'email_skipped', detail: { templateKey: 'welcome', reason: 'suppressed' } }]);
      expect(await sendRow(step.idempotencyKey)).toMatchObject({ status: 'cancelled', errorMessage: 'suppressed' });
      expect(await emailsTo(to)).toHaveLength(0);
    });

    it('a send accepted before is not asked again: a complaint about it does not turn the retry into a skip', async () => {
      const to = uniqueAddress('retry-journey-sent');
      const step = await journeyStep(to);
      const sent = await deliverJourneyEmail(deps.email, step);
      expect(sent).toMatchObject({ status: 'sent' });
      await suppress(to);

      expect(await deliverJourneyEmail(deps.email, step)).toEqual(sent);
      expect((await logsOf(step.stateId)).map((log) => log.action)).toEqual(['email_sent']);
      expect(await emailsTo(to)).toHaveLength(1);
    });
  });
});
