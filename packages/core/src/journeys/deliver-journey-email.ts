import { sql } from 'kysely';
import type { Db } from '../db/database';
import { recordDeadLetter } from '../dlq/dead-letters';
import { LOCALE_PROPERTY, propertiesLocale } from '../contacts/locale';
import { isAppError } from '../errors/app-error';
import { programHoldout, programHoldoutDetail } from '../delivery/program-holdout';
import type { SendJourneyEmailInput, SendJourneyEmailResult } from './journey-email';
import { applyJourneyFrequencyCap, releaseJourneyCapClaim } from './journey-frequency-cap';
import { applyJourneyReputationHold } from './journey-reputation-hold';
import { applyJourneyWarmupHold } from './journey-warmup-hold';
import { isLiveStatus } from './live-statuses';
import { journeyStepExpressions, recordJourneyStep } from './run-steps';
import type { EmailDeps } from '../emails/email-deps';
import { emailCategory, sendEmail } from '../emails/send-email';
import type { EmailSendRow, JourneyStatus } from '../db/schema';
import { gateCategory, sendGateResult, sendGateVerdicts, type GateCategory, type SendGateResult } from '../preferences/send-gate';

export type JourneyEmailOutcome = SendJourneyEmailResult | { status: 'deferred'; retryAt: Date; reason: string };

/**
 * The journey email step (activity `sendJourneyEmail`): the send path plus the journey log.
 * - sent → `email_sent` (once per send, even when the activity is retried after the send);
 * - skipped (preferences, suppression) → `email_skipped` with the reason; the journey goes on;
 * - failed for good (provider errors exhausted, bad template data, delivery unknown) →
 *   `email_failed`; the send is failed + DLQ and the journey goes on (docs/email.md);
 * - deferred (journey `suppress.hours`) → the state is `waiting` until `retryAt`; the activity
 *   turns this into a durable retry at that time;
 * - over a frequency cap of the delivery policy → skipped or held (journey-frequency-cap.ts);
 * - marketing mail to a provider the reputation breaker paused → held (journey-reputation-hold.ts);
 * - marketing mail past today's warm-up allowance → held until the next day (journey-warmup-hold.ts).
 */
export async function deliverJourneyEmail(deps: EmailDeps, input: SendJourneyEmailInput): Promise<JourneyEmailOutcome> {
  const category = emailCategory(deps, input.templateKey, input.category);
  const gate = gateCategory(deps.categories, category);
  const known = await readSendContext(deps.db, input, gate);
  if (known.stateStatus === null || !isLiveStatus(known.stateStatus)) return { status: 'skipped', reason: 'state_not_active' };
  // a held-out person is exposed to the same timeline without the email; a required category (a
  // receipt, a password reset) is something they asked for, so it is never held out. The program
  // holdout (journeys/delivery-policy.ts) holds its categories back from every journey and broadcast.
  const journeyHeld = input.holdout === true && !deps.categories.required(category);
  const programArm = journeyHeld ? undefined : programHoldout(deps.delivery.policy, deps.categories, category, input.userId);
  if (journeyHeld || programArm !== undefined) {
    await recordJourneyStep(deps.db, {
      stateId: input.stateId,
      toNodeId: input.nodeId,
      action: 'email_skipped',
      status: 'active',
      detail: { templateKey: input.templateKey, reason: 'holdout', ...(programArm === undefined ? {} : programHoldoutDetail(programArm)) },
    });
    return { status: 'skipped', reason: 'holdout' };
  }
  // mail the person may leave, to a provider whose marketing breaker is paused, waits (docs/email.md, "Reputation breaker")
  if (known.gate.allowed) {
    const held = await applyJourneyReputationHold(deps, input, gate, known.row !== undefined);
    if (held !== undefined) return held;
  }

  // the send's row, read with the state above, tells a retry of an admitted send
  const cap = await applyJourneyFrequencyCap(deps, input, known.row !== undefined);
  if (cap.status !== 'admitted') return cap;
  try {
    // past today's warm-up allowance: waits for the next day's (docs/email.md, "Warm-up")
    const warmup = await applyJourneyWarmupHold(deps, input, gate, known.row !== undefined);
    if (warmup !== undefined) return warmup;
    return await sendAndRecord(deps, input, known);
  } finally {
    if (cap.claimed) await releaseJourneyCapClaim(deps, input);
  }
}

/** The send path, then the journey log of its answer. */
async function sendAndRecord(deps: EmailDeps, input: SendJourneyEmailInput, known: SendContext): Promise<JourneyEmailOutcome> {
  const base = { stateId: input.stateId, toNodeId: input.nodeId };
  // the email_sent step goes in the statement that marks the send sent (one round trip); only a
  // retry that finds the send already accepted writes it on its own, once
  let loggedWithSend = false;
  let result;
  try {
    result = await sendEmail(
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
      {
        known,
        whenSent: (emailSendId) => {
          loggedWithSend = true;
          return journeyStepExpressions({ ...base, action: 'email_sent', status: 'active', detail: { templateKey: input.templateKey, emailSendId } });
        },
      },
    );
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
  switch (result.status) {
    case 'sent':
      if (!loggedWithSend && !(await hasLogFor(deps.db, input.stateId, 'email_sent', result.emailSendId))) {
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
  gate: SendGateResult;
  /** the contact's `locale` property (docs/email.md, "Languages"); undefined: the template's default */
  contactLocale: string | undefined;
}

/**
 * What a journey send reads before it writes, in ONE statement: the run's state (is it still
 * live?), the send of this idempotency key (a retry continues it), the send gate for the
 * address and the contact's locale. It was three statements per email, each a round trip and a plan.
 */
async function readSendContext(db: Db, input: SendJourneyEmailInput, category: GateCategory): Promise<SendContext> {
  const { rows } = await sql<
    EmailSendRow & {
      stateStatus: JourneyStatus | null;
      suppressed: boolean | null;
      unsubscribedAll: boolean | null;
      categoryOff: boolean | null;
      contactLocale: string | null;
    }
  >`
    select s.*, st.status as state_status, gate.*, person.contact_locale
    from (select 1) as one
    left join journey_states st on st.id = ${input.stateId}
    left join email_sends s on s.idempotency_key = ${input.idempotencyKey}
    cross join lateral (
      select ${sql.join(sendGateVerdicts(category, sql.val(input.userEmail)))} from email_preferences where lower(email) = ${input.userEmail.toLowerCase()}
    ) as gate
    left join lateral (
      -- the enrolled contact: by external id, else the email-only contact its user id is the address of
      select properties->>${LOCALE_PROPERTY} as contact_locale from contacts
      where external_id = ${input.userId} or (external_id is null and lower(email) = lower(${input.userId}))
      order by (external_id is null) limit 1
    ) as person on true`.execute(db);
  const { stateStatus, suppressed, unsubscribedAll, categoryOff, contactLocale, ...send } = rows[0]!;
  return {
    stateStatus,
    row: send.id === null ? undefined : send,
    gate: sendGateResult({ suppressed, unsubscribedAll, categoryOff }, category),
    contactLocale: propertiesLocale({ [LOCALE_PROPERTY]: contactLocale }),
  };
}
