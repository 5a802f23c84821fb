import { sql } from 'kysely';
import type { Db } from '../db/database';
import { NAMED_STATEMENT } from '../db/named-statements';
import { recordDeadLetter } from '../dlq/dead-letters';
import { namedByUserId } from '../contacts/contact';
import { LOCALE_PROPERTY, propertiesLocale } from '../contacts/locale';
import { contactTimeZone } from '../contacts/time-zone';
import { isAppError } from '../errors/app-error';
import { admitSends, type AdmissionDefer, type AdmissionPorts, type AdmissionSkip } from '../delivery/admit-sends';
import { databaseAdmission } from '../emails/database-admission';
import { releaseCapClaims } from '../delivery/frequency-caps';
import type { SendJourneyEmailInput, SendJourneyEmailResult } from './journey-email';
import { journeyAdmissionBatch, journeyAdmissionStep } from './journey-admission';
import { isLiveStatus } from './live-statuses';
import { journeyStepExpressions, recordJourneyStep } from './run-steps';
import type { EmailDeps } from '../emails/email-deps';
import { attemptSend, type SendEmailResult } from '../emails/send-email';
import { EMAIL_SEND_COLUMNS } from '../emails/send-ledger';
import { recordSent } from '../emails/send-outcome';
import type { EmailSendRow, JourneyStatus } from '../db/schema';
import { sendGateVerdicts, type SendGateVerdicts } from '../preferences/send-gate';

export type JourneyEmailOutcome = SendJourneyEmailResult | { status: 'deferred'; retryAt: Date; reason: string };

/**
 * The journey email step (activity `sendJourneyEmail`): the send path plus the journey log.
 * Whether the send goes now is admitSends's answer (delivery/admit-sends.ts: holdouts, the gate,
 * the reputation breaker, the frequency caps, `suppress.hours`, the warm-up, in that order), asked
 * with the gate this step already read in its one statement (on a retry of a send not yet
 * accepted, the send path asks the holdouts and that gate again, and the log is the same):
 * - sent → `email_sent` (once per send, even when the activity is retried after the send);
 * - skipped (holdout, preferences, suppression, a `skip` cap) → `email_skipped` with the reason; the journey goes on;
 * - failed for good (provider errors exhausted, bad template data, delivery unknown) →
 *   `email_failed`; the send is failed + DLQ and the journey goes on (docs/email.md);
 * - deferred (a hold, the suppress window) → the state is `waiting` until `retryAt`; the activity
 *   turns this into a durable retry at that time.
 */
export async function deliverJourneyEmail(deps: EmailDeps, input: SendJourneyEmailInput): Promise<JourneyEmailOutcome> {
  const known = await readSendContext(deps.db, input);
  if (known.stateStatus === null || !isLiveStatus(known.stateStatus)) return { status: 'skipped', reason: 'state_not_active' };
  const gate = new Map([[input.userEmail.toLowerCase(), known.gate]]);
  // the gate read above, on every attempt: a retry's send (its row, read with the state) is asked
  // it again by the send path, right before its claim (emails/send-email.ts)
  const ports = databaseAdmission(deps, new Date(), { gate: async () => gate });
  if (known.row !== undefined) return sendAndRecord(deps, input, known, ports);
  const admission = (await admitSends(ports, journeyAdmissionBatch(input, false)))[0]!;
  if (admission.verdict !== 'send') return recordAdmission(deps, input, admission);
  try {
    return await sendAndRecord(deps, input, known, ports);
  } finally {
    // the send path has answered: its email_sends row (if any) counts for the caps from now on
    if (admission.capClaim) await releaseCapClaims(deps.db, [input.idempotencyKey]);
  }
}

/** The journey log of a send admitSends did not let through, on a first attempt or asked again on a retry. */
async function recordAdmission(deps: EmailDeps, input: SendJourneyEmailInput, admission: AdmissionSkip | AdmissionDefer): Promise<JourneyEmailOutcome> {
  // a `delay` cap's end is shown on the recipient's clock too
  const timeZone =
    admission.verdict === 'defer' && admission.reason === 'frequency_cap'
      ? await contactTimeZone(deps.db, input.userId, deps.delivery.defaultTimeZone)
      : deps.delivery.defaultTimeZone;
  const { outcome, ...step } = journeyAdmissionStep(input.templateKey, admission, timeZone);
  await recordJourneyStep(deps.db, { stateId: input.stateId, toNodeId: input.nodeId, ...step });
  return outcome;
}

/** The send path, then the journey log of its answer. */
async function sendAndRecord(deps: EmailDeps, input: SendJourneyEmailInput, known: SendContext, ports: AdmissionPorts): Promise<JourneyEmailOutcome> {
  const base = { stateId: input.stateId, toNodeId: input.nodeId };
  // the email_sent step goes in the statement that marks the send sent (one round trip); only a
  // retry that finds the send already accepted writes it on its own, once
  let result: SendEmailResult;
  try {
    const attempt = await attemptSend(
      deps,
      {
        templateKey: input.templateKey,
        to: input.userEmail,
        data: input.data,
        userId: input.userId,
        category: input.category,
        journeyStateId: input.stateId,
        idempotencyKey: input.idempotencyKey,
        suppressHours: input.suppressHours,
        locale: known.contactLocale,
      },
      { admitted: { row: known.row, ports, again: journeyAdmissionBatch(input, true) } },
    );
    if (attempt.status === 'refused') return await recordAdmission(deps, input, attempt.admission);
    if (attempt.status !== 'accepted') result = attempt;
    else {
      const detail = { templateKey: input.templateKey, emailSendId: attempt.row.id };
      result = await recordSent(deps, attempt.row, attempt.messageId, journeyStepExpressions({ ...base, action: 'email_sent', status: 'active', detail }));
      // logged with the send; recording it may also end it otherwise (delivery unknown), logged below
      if (result.status === 'sent') return { status: 'sent', emailSendId: result.emailSendId };
    }
  } catch (error) {
    // a journey naming a template this deployment does not have: retrying cannot help
    if (!isAppError(error) || error.code !== 'validation') throw error;
    const reason = error.message;
    await recordDeadLetter(deps.db, {
      source: 'email',
      sourceId: null,
      payload: {
        templateKey: input.templateKey,
        to: input.userEmail,
        userId: input.userId,
        category: input.category,
        journeyStateId: input.stateId,
        idempotencyKey: input.idempotencyKey,
        data: input.data,
      },
      error: reason,
    });
    await recordJourneyStep(deps.db, { ...base, action: 'email_failed', status: 'active', detail: { templateKey: input.templateKey, reason } });
    return { status: 'failed', reason };
  }
  return recordOutcome(deps, input, result);
}

/** The journey log of the send path's answer (a send accepted by an earlier attempt: its `email_sent`, unless already written). */
async function recordOutcome(deps: EmailDeps, input: SendJourneyEmailInput, result: SendEmailResult): Promise<JourneyEmailOutcome> {
  const base = { stateId: input.stateId, toNodeId: input.nodeId };
  switch (result.status) {
    case 'sent':
      if (!(await hasLogFor(deps.db, input.stateId, 'email_sent', result.emailSendId))) {
        await recordJourneyStep(deps.db, {
          ...base,
          action: 'email_sent',
          status: 'active',
          detail: { templateKey: input.templateKey, emailSendId: result.emailSendId },
        });
      }
      return { status: 'sent', emailSendId: result.emailSendId };
    case 'skipped':
      await recordJourneyStep(deps.db, {
        ...base,
        action: 'email_skipped',
        status: 'active',
        detail: { templateKey: input.templateKey, reason: result.reason },
      });
      return { status: 'skipped', reason: result.reason };
    case 'failed':
      if (!(await hasLogFor(deps.db, input.stateId, 'email_failed', result.emailSendId))) {
        await recordJourneyStep(deps.db, {
          ...base,
          action: 'email_failed',
          status: 'active',
          detail: { templateKey: input.templateKey, emailSendId: result.emailSendId, reason: result.reason },
        });
      }
      return { status: 'failed', emailSendId: result.emailSendId, reason: result.reason };
    case 'deferred':
      await recordJourneyStep(deps.db, {
        ...base,
        action: 'waiting',
        status: 'waiting',
        detail: { templateKey: input.templateKey, reason: result.reason, until: result.retryAt.toISOString() },
      });
      return { status: 'deferred', retryAt: result.retryAt, reason: result.reason };
  }
}

async function hasLogFor(db: Db, stateId: string, action: string, emailSendId: string): Promise<boolean> {
  const row = await db
    .selectFrom('journeyLogs')
    .select('id')
    .where('journeyStateId', '=', stateId)
    .where('action', '=', action)
    .where(sql`detail ->> 'emailSendId'`, '=', emailSendId)
    .executeTakeFirst();
  return row !== undefined;
}

interface SendContext {
  /** null: the state is gone */
  stateStatus: JourneyStatus | null;
  row: EmailSendRow | undefined;
  /** the send gate's aggregates for the address */
  gate: SendGateVerdicts;
  /** the contact's `locale` property (docs/email.md, "Languages"); undefined: the template's default */
  contactLocale: string | undefined;
}

/**
 * What a journey send reads before it writes, in ONE statement: the run's state (is it still
 * live?), the send of this idempotency key (a retry continues it), the send gate for the
 * address and the contact's locale. One statement because each of these is a round trip and a plan
 * on the hottest path there is (every journey email); by name, so it is not planned every time either.
 */
async function readSendContext(db: Db, input: SendJourneyEmailInput): Promise<SendContext> {
  const { rows } = await sql<
    EmailSendRow & {
      stateStatus: JourneyStatus | null;
      suppressed: boolean | null;
      unsubscribedAll: boolean | null;
      categoryOff: boolean | null;
      contactLocale: string | null;
    }
  >`${NAMED_STATEMENT}
    select ${sql.join(EMAIL_SEND_COLUMNS.map((column) => sql.ref(`s.${column}`)))}, st.status as state_status, gate.*, person.contact_locale
    from (select 1) as one
    left join journey_states st on st.id = ${input.stateId}
    left join email_sends s on s.idempotency_key = ${input.idempotencyKey}
    cross join lateral (
      select ${sql.join(sendGateVerdicts(input.category, sql.val(input.userEmail)))} from email_preferences where lower(email) = ${input.userEmail.toLowerCase()}
    ) as gate
    left join lateral (
      -- the enrolled contact: by external id, else the email-only contact its user id is the address of
      select properties->>${LOCALE_PROPERTY} as contact_locale from contacts
      where ${namedByUserId(input.userId)}
      order by (external_id is null) limit 1
    ) as person on true`.execute(db);
  const { stateStatus, suppressed, unsubscribedAll, categoryOff, contactLocale, ...send } = rows[0]!;
  return {
    stateStatus,
    row: send.id === null ? undefined : send,
    gate: { suppressed, unsubscribedAll, categoryOff },
    contactLocale: propertiesLocale({ [LOCALE_PROPERTY]: contactLocale }),
  };
}
