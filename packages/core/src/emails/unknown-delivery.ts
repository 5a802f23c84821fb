import { sql } from 'kysely';
import { unknownDeliveryAction } from '@waymark/journey';
import type { EmailSendRow } from '../db/schema';
import { SNS_MAX_MESSAGE_AGE_MS } from '@waymark/email/sns-message';
import type { EmailDeps } from './email-deps';
import { eventStreamSince } from './ses-event-stream';

/** The longest a retry waits before it looks at an unknown send again (its event may settle it sooner). */
const LOOK_AGAIN_MS = 60_000;
/** ... and the shortest, so a clock a little apart from the database's never makes it look again at once */
const MIN_LOOK_AGAIN_MS = 1_000;

/**
 * What the retry of a send whose outcome is unknown does next: an answer, `resend` (the claim is
 * released: render and claim again), or `ask` (the caller fails it for good into the DLQ).
 */
export type UnknownDeliveryStep = { status: 'sent'; emailSendId: string } | UnknownDeliveryAnswer | 'resend' | 'ask';
type UnknownDeliveryAnswer =
  | { status: 'failed'; emailSendId: string; reason: string; dropped?: true }
  | { status: 'deferred'; emailSendId?: undefined; reason: 'delivery_unknown'; retryAt: Date };

export const UNKNOWN_STOPPED = 'an earlier attempt stopped during the provider call';
export const UNKNOWN_CLAIMED = 'another attempt claimed this send';

/**
 * A claimed send without a provider message id: its attempt stopped during the provider call (or
 * another one holds it), so SES may or may not have accepted it (docs/email.md, "Exactly once").
 *
 * - With SES event publishing (`unknownDeliveries.settleMs`), SES says so itself: its Send event
 *   (or any later one) carries the send id tag and marks the send sent
 *   (webhooks/email-provider/process-notification.ts). The retry waits and looks again until the
 *   settle window after the claim has passed AND the event stream has come past the claim for that
 *   long (ses-event-stream.ts): events of messages SES accepted later have been arriving for a
 *   whole window, or SES accepted nothing since. Then SES never accepted this one, and it is sent
 *   again under the same row. A webhook that is down or behind holds the resend back, since the
 *   Send event may still come; once no event of the message can come any more (SNS retries for at
 *   most an hour and the webhook refuses an older message), the delivery policy decides as below.
 * - A send whose recipient has been erased since (erase-sends.ts) is dropped, whatever the policy.
 * - Without it, the delivery policy decides per category (`unknown`): `drop` (the default, at most
 *   once: `unknown_dropped`), `resend` (at least once), or `ask` (the DLQ; the default of a
 *   required category).
 */
export async function settleUnknownDelivery(deps: EmailDeps, row: EmailSendRow, what: string): Promise<UnknownDeliveryStep> {
  // its recipient was erased during the provider call: never sent again (SES's Send event, if it took it, still marks it sent)
  if (row.erasedAt !== null) return drop(deps, row, `Delivery unknown: ${what}; not resent, its recipient has been erased`);
  const settleMs = deps.unknownDeliveries?.settleMs;
  if (settleMs !== undefined) {
    const claimedAt = row.sendStartedAt ?? new Date();
    const now = Date.now();
    const deadline = claimedAt.getTime() + settleMs;
    if (now < deadline) return lookAgain(Math.min(deadline, now + LOOK_AGAIN_MS));
    const stream = await eventStreamSince(deps.db, claimedAt, new Date(now - settleMs));
    if (stream.state !== 'late') {
      deps.logger?.warn(
        { emailSendId: row.id, settleMs, stream: stream.state },
        'delivery unknown: no SES event within the settle window while the event stream came past the claim, so SES never accepted it; sending again',
      );
      return release(deps, row);
    }
    // SNS gives up on a delivery within an hour, and the webhook refuses a message older than that
    if (now < claimedAt.getTime() + Math.max(settleMs, SNS_MAX_MESSAGE_AGE_MS) + LOOK_AGAIN_MS) {
      deps.logger?.warn(
        { emailSendId: row.id, settleMs },
        'delivery unknown: SES events of later sends have not arrived either; waiting for them before sending again',
      );
      // once an event past the claim has come, the stream has been past it for a window at that event + the window
      const caughtUp = stream.firstEventAt === undefined ? Infinity : stream.firstEventAt.getTime() + settleMs;
      return lookAgain(Math.max(now + MIN_LOOK_AGAIN_MS, Math.min(now + LOOK_AGAIN_MS, caughtUp)));
    }
    deps.logger?.error(
      { emailSendId: row.id, category: row.category },
      'delivery unknown: SES events stopped coming through for over an hour (check the configuration set event destination and the SNS subscription); the delivery policy decides',
    );
  }
  const category = row.category;
  switch (unknownDeliveryAction(deps.delivery.policy, category, deps.categories.required(category))) {
    case 'ask':
      return 'ask';
    case 'resend':
      deps.logger?.warn({ emailSendId: row.id, category }, 'delivery unknown: sending again, as the delivery policy says for this category');
      return release(deps, row);
    case 'drop':
      return drop(deps, row, `Delivery unknown: ${what}; dropped, not resent (the delivery policy keeps category "${category}" at most once)`);
  }
}

function lookAgain(at: number): UnknownDeliveryStep {
  return { status: 'deferred', reason: 'delivery_unknown', retryAt: new Date(at) };
}

/** Releases the stopped attempt's claim so this one can claim the row again; another attempt that got there first is waited for. */
async function release(deps: EmailDeps, row: EmailSendRow): Promise<UnknownDeliveryStep> {
  const released = await deps.db
    .updateTable('emailSends')
    .set({ sendStartedAt: null, updatedAt: new Date() })
    .where('id', '=', row.id)
    // the claim as read: a batch claims with the database's now(), to the microsecond, and a
    // JavaScript date keeps milliseconds (truncated), so compared whole it never matched
    .where(sql<Date>`date_trunc('milliseconds', send_started_at)`, '=', row.sendStartedAt)
    .where('providerMessageId', 'is', null)
    .where('status', 'in', ['queued', 'rendered'])
    .executeTakeFirst();
  if (released.numUpdatedRows > 0n) return 'resend';
  return settledSince(deps, row.id);
}

async function drop(deps: EmailDeps, row: EmailSendRow, reason: string): Promise<UnknownDeliveryStep> {
  const dropped = await deps.db
    .updateTable('emailSends')
    .set({ status: 'unknown_dropped', errorMessage: reason, updatedAt: new Date() })
    .where('id', '=', row.id)
    .where('providerMessageId', 'is', null)
    .where('status', 'in', ['queued', 'rendered'])
    .executeTakeFirst();
  if (dropped.numUpdatedRows > 0n) {
    deps.logger?.warn({ emailSendId: row.id, category: row.category }, 'delivery unknown: dropped (at most once)');
    return { status: 'failed', emailSendId: row.id, reason, dropped: true };
  }
  return settledSince(deps, row.id);
}

/** The row changed under us (an event settled it, another attempt took it): its state now, else look again shortly. */
async function settledSince(deps: EmailDeps, emailSendId: string): Promise<UnknownDeliveryStep> {
  const current = await deps.db.selectFrom('emailSends').select(['status', 'errorMessage']).where('id', '=', emailSendId).executeTakeFirstOrThrow();
  if (current.status === 'unknown_dropped' || current.status === 'failed')
    return {
      status: 'failed',
      emailSendId,
      reason: current.errorMessage ?? current.status,
      ...(current.status === 'unknown_dropped' ? { dropped: true as const } : {}),
    };
  if (current.status !== 'queued' && current.status !== 'rendered') return { status: 'sent', emailSendId };
  return { status: 'deferred', reason: 'delivery_unknown', retryAt: new Date(Date.now() + 1_000) };
}
