import { sql } from 'kysely';
import type { Db } from '../db/database';
import { recordDeadLetter } from '../dlq/dead-letters';
import { isAppError } from '../errors/app-error';
import type { SendJourneyEmailInput, SendJourneyEmailResult } from './journey-email';
import { applyJourneyFrequencyCap, releaseJourneyCapClaim } from './journey-frequency-cap';
import { isLiveStatus } from './live-statuses';
import { recordJourneyStep } from './run-steps';
import type { EmailDeps } from '../emails/email-deps';
import { sendEmail } from '../emails/send-email';

export type JourneyEmailOutcome = SendJourneyEmailResult | { status: 'deferred'; retryAt: Date; reason: string };

/**
 * The journey email step (activity `sendJourneyEmail`): the send path plus the journey log.
 * - sent → `email_sent` (once per send, even when the activity is retried after the send);
 * - skipped (preferences, suppression) → `email_skipped` with the reason; the journey goes on;
 * - failed for good (provider errors exhausted, bad template data, delivery unknown) →
 *   `email_failed`; the send is failed + DLQ and the journey goes on (docs/email.md);
 * - deferred (journey `suppress.hours`) → the state is `waiting` until `retryAt`; the activity
 *   turns this into a durable retry at that time;
 * - over a frequency cap of the delivery policy → skipped or held (journey-frequency-cap.ts).
 */
export async function deliverJourneyEmail(deps: EmailDeps, input: SendJourneyEmailInput): Promise<JourneyEmailOutcome> {
  const state = await deps.db.selectFrom('journeyStates').select('status').where('id', '=', input.stateId).executeTakeFirst();
  if (state === undefined || !isLiveStatus(state.status)) return { status: 'skipped', reason: 'state_not_active' };

  const cap = await applyJourneyFrequencyCap(deps, input);
  if (cap.status !== 'admitted') return cap;
  try {
    return await sendAndRecord(deps, input);
  } finally {
    if (cap.claimed) await releaseJourneyCapClaim(deps, input);
  }
}

/** The send path, then the journey log of its answer. */
async function sendAndRecord(deps: EmailDeps, input: SendJourneyEmailInput): Promise<JourneyEmailOutcome> {
  const base = { stateId: input.stateId, toNodeId: input.nodeId };
  let result;
  try {
    result = await sendEmail(deps, {
      templateKey: input.templateKey,
      to: input.userEmail,
      data: input.data,
      userId: input.userId,
      category: input.category,
      journeyStateId: input.stateId,
      idempotencyKey: input.idempotencyKey,
      suppressHours: input.suppressHours,
    });
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
