import { sql } from 'kysely';
import { holdoutArm } from '@waymark/journey';
import { readBreakerSnapshot } from '../deliverability/reputation-hold';
import { admitSends } from '../delivery/admit-sends';
import { databaseAdmission } from '../emails/database-admission';
import { eachLimited } from '../concurrency/each-limited';
import type { EmailDeps } from '../emails/email-deps';
import type { SendEmailInput, SendEmailResult } from '../emails/send-email';
import { createBatchSender, createQueuedSends } from '../emails/send-email-batch';
import type { BroadcastPhase, JsonObject } from '../db/schema';
import { propertiesLocale } from '../contacts/locale';
import { releaseCapClaims } from '../delivery/frequency-caps';
import { lockForChunk } from './broadcast-transition-lock';
import { UNKNOWN_DROPPED, type BroadcastSkipReason, type BroadcastVariant } from './broadcast-schemas';
import { recipientTemplateData } from './broadcast-template-data';
import { pauseForReputation } from './broadcast-reputation';
import { claimBroadcastWarmup, deferRestForWarmup } from './broadcast-warmup';

/** Recipients claimed per chunk: one transaction and lock of the row, one set-based gate query (docs/broadcasts.md, "How fast"). */
export const BROADCAST_CHUNK_SIZE = 400;
/**
 * Sends in flight at once within a chunk. A send mostly waits (the provider call, its flushes),
 * and the more are in flight the more each group-committed flush covers: 16 → 64 (with chunks of
 * 100 → 400) took the bench from 379 to ~630 sends/s. The price: a worker killed mid-chunk leaves
 * up to this many sends "delivery unknown" in the DLQ (never sent twice).
 */
export const BROADCAST_SEND_CONCURRENCY = 64;

export interface BroadcastSendDeps {
  email: EmailDeps;
  /** called after each send, so a worker killed mid-chunk is noticed (the activity's heartbeat) */
  heartbeat?: () => void;
}

/** The one key of a recipient's email: a chunk run twice, a retried `send`, a restarted worker all find the same send. */
export function broadcastEmailKey(broadcastId: string, contactId: string): string {
  return `broadcast:${broadcastId}:${contactId}`;
}

interface Outcome {
  contactId: string;
  status: 'sent' | 'failed' | 'skipped';
  reason: string | null;
  emailSendId: string | null;
}

/** A recipient's skip as the broadcast counts it: the gate's reasons fold into `suppressed` and `unsubscribed`. */
export function broadcastSkipReason(reason: string | undefined): BroadcastSkipReason {
  if (reason === 'holdout' || reason === 'frequency_cap' || reason === 'missing_data') return reason;
  return reason === 'suppressed' ? 'suppressed' : 'unsubscribed';
}

function outcomeOf(contactId: string, result: Exclude<SendEmailResult, { status: 'deferred' }>): Outcome {
  switch (result.status) {
    case 'sent':
      return { contactId, status: 'sent', reason: null, emailSendId: result.emailSendId };
    case 'failed':
      // an unknown delivery dropped at most once (docs/email.md, "Exactly once"): counted apart, the send linked
      if (result.dropped === true) return { contactId, status: 'skipped', reason: UNKNOWN_DROPPED, emailSendId: result.emailSendId };
      return { contactId, status: 'failed', reason: result.reason.slice(0, 500), emailSendId: result.emailSendId };
    case 'skipped':
      return { contactId, status: 'skipped', reason: broadcastSkipReason(result.reason), emailSendId: null };
  }
}

/**
 * Sends one chunk of a broadcast: up to BROADCAST_CHUNK_SIZE pending recipients of `phases` due at
 * `now`, in snapshot order. Answers how many it claimed (0: none due, the broadcast is not
 * sending, or a transition is waiting). Safe to run again: each email goes through the send path
 * under its recipient's key (exactly once per key), and a recipient's row leaves `pending` only once.
 *
 * The chunk holds the transition lock (shared) and the broadcast row FOR NO KEY UPDATE while it
 * works, so pause and cancel wait for it and then go before any next chunk
 * (broadcast-transition-lock.ts): once they answer, no email of the broadcast leaves until resume.
 * The row lock also keeps two chunks of one broadcast apart (an attempt that timed out but still
 * runs, and its retry): the second finds the first one's recipients no longer pending. The locks
 * leave rows that only reference the broadcast (recipients, email_sends) free to be written by
 * other connections.
 */
export async function sendBroadcastChunk(deps: BroadcastSendDeps, broadcastId: string, phases: readonly BroadcastPhase[], now: Date): Promise<number> {
  const db = deps.email.db;
  return db.transaction().execute(async (trx) => {
    // a pause or cancel is waiting: it goes first, and the run's next step reads the row again
    if (!(await lockForChunk(trx, broadcastId))) return 0;
    const row = await trx.selectFrom('broadcasts').selectAll().where('id', '=', broadcastId).forNoKeyUpdate().executeTakeFirst();
    if (row === undefined || (row.status !== 'sending' && row.status !== 'testing')) return 0;
    const due = await trx
      .selectFrom('broadcastRecipients as r')
      .innerJoin('contacts as c', 'c.id', 'r.contactId')
      .select(['r.contactId', 'r.userId', 'r.email', 'r.variantId', 'c.properties'])
      .where('r.broadcastId', '=', broadcastId)
      .where('r.status', '=', 'pending')
      .where('r.phase', 'in', phases)
      .where((eb) => eb.or([eb('r.sendAt', 'is', null), eb('r.sendAt', '<=', now)]))
      .orderBy('r.position')
      .limit(BROADCAST_CHUNK_SIZE)
      .execute();
    if (due.length === 0) return 0;
    const variants = (row.variants as unknown as BroadcastVariant[] | null) ?? [];
    // each recipient's email as it would go; undefined when its template data is missing (a prop
    // the template requires in neither the broadcast's data nor the contact's properties)
    const inputs = due.map((recipient): SendEmailInput | undefined => {
      const variant = variants.find((candidate) => candidate.id === recipient.variantId);
      const templateKey = variant?.templateKey ?? row.templateKey;
      const template = deps.email.templates.find(templateKey);
      const data =
        template === undefined
          ? undefined
          : recipientTemplateData(template, { ...row.data, ...(variant?.data as JsonObject | undefined) }, recipient.properties);
      if (data === undefined) return undefined;
      return {
        templateKey,
        to: recipient.email!,
        data,
        userId: recipient.userId ?? undefined,
        category: row.category,
        idempotencyKey: broadcastEmailKey(broadcastId, recipient.contactId),
        broadcastId,
        subject: variant?.subject ?? row.subject ?? undefined,
        locale: propertiesLocale(recipient.properties),
      };
    });

    // each recipient's answer in the send paths' one order (delivery/admit-sends.ts). The
    // broadcast's own holdout (docs/broadcasts.md, "Goals and holdouts") is the journeys' arm rule,
    // keyed by the broadcast; the program holdout hashes the same person as in journeys, by user id
    // (else the address, as explain reads them). Both skip as `holdout`, so the goal's holdout arm
    // is everyone a hash kept from this email: still a random set, so the lift stays unbiased.
    const holdout = row.holdoutPercent > 0 ? { percent: row.holdoutPercent } : undefined;
    const admissions = await admitSends(
      databaseAdmission(deps.email, now, {
        // the breakers as they are now, not the process's snapshot of up to 5 s ago
        breakers: await readBreakerSnapshot(trx),
        // inside the chunk's transaction: undone with it when a send throws; the rest (the least
        // engaged, last in snapshot order) wait for the next day
        claimWarmup: (want) => claimBroadcastWarmup(trx, deps.email.delivery.policy, row, want, now),
      }),
      {
        kind: 'broadcast',
        category: row.category,
        sends: due.map((recipient, index) => ({
          key: broadcastEmailKey(broadcastId, recipient.contactId),
          to: recipient.email!,
          userId: recipient.userId ?? recipient.email!,
          heldOut: holdoutArm({ id: broadcastId, holdout }, recipient.userId ?? recipient.contactId)?.holdout === true,
          missingData: inputs[index] === undefined,
        })),
      },
    );
    // over a `delay` cap or past the warm-up allowance: still pending, due again when there is room
    const delayed: { contactId: string; until: Date }[] = [];
    const outcomes: Outcome[] = [];
    const sends: { contactId: string; input: SendEmailInput }[] = [];
    // the admitted sends' cap claims, released once the sends have answered
    const claimed: string[] = [];
    let heldByBreaker = false;
    let warmupSpentUntil: Date | undefined;
    due.forEach((recipient, index) => {
      const admission = admissions[index]!;
      const input = inputs[index];
      if (admission.verdict === 'skip')
        outcomes.push({ contactId: recipient.contactId, status: 'skipped', reason: broadcastSkipReason(admission.reason), emailSendId: null });
      else if (admission.verdict === 'send') {
        if (admission.capClaim) claimed.push(input!.idempotencyKey);
        sends.push({ contactId: recipient.contactId, input: input! });
      } else if (admission.reason === 'reputation') {
        // pending as it is: it goes once the breaker resumes the broadcast
        heldByBreaker = true;
      } else {
        if (admission.reason === 'warmup') warmupSpentUntil = admission.until;
        delayed.push({ contactId: recipient.contactId, until: admission.until });
      }
    });
    // marketing mail to a provider whose reputation breaker is paused: the broadcast pauses
    // (docs/email.md, "Reputation breaker"); the chunk's sends the breaker does not hold go on
    if (heldByBreaker) await pauseForReputation(trx, row);
    // today's warm-up allowance is spent: the broadcast's other due recipients wait for the next
    // day too (docs/email.md, "Warm-up"), in one UPDATE rather than a chunk at a time
    if (warmupSpentUntil !== undefined)
      await deferRestForWarmup(
        trx,
        { broadcastId, phases, now, until: warmupSpentUntil },
        due.map((recipient) => recipient.contactId),
      );

    // every queued row of the chunk in one statement (an earlier attempt's rows are kept as they
    // are); then each send renders, claims and records "sent" in flushes shared with the others
    const sender = createBatchSender(deps.email);
    try {
      const rows = await createQueuedSends(
        deps.email,
        sends.map((send) => ({ input: send.input, category: row.category })),
      );
      await eachLimited(sends, BROADCAST_SEND_CONCURRENCY, async (send) => {
        const result = await sender.send(rows.get(send.input.idempotencyKey)!);
        // past the send rate's budget (docs/email.md, "Send rate"): the slot is kept for this
        // send's key, and the recipient stays pending until then (broadcasts pass no suppress
        // window, the other reason a send is deferred)
        if (result.status === 'deferred') delayed.push({ contactId: send.contactId, until: result.retryAt });
        else outcomes.push(outcomeOf(send.contactId, result));
        deps.heartbeat?.();
      });
    } finally {
      if (delayed.length > 0) {
        const values = sql.join(delayed.map((held) => sql`(${held.contactId}::uuid, ${held.until}::timestamptz)`));
        await sql`
          update broadcast_recipients r set send_at = v.until, updated_at = now()
          from (values ${values}) as v(contact_id, until)
          where r.broadcast_id = ${broadcastId} and r.contact_id = v.contact_id and r.status = 'pending'`.execute(db);
      }
      // what was decided is kept even when a send threw (the retried chunk finds the rest pending);
      // outside the chunk's transaction, which a thrown send rolls back
      if (outcomes.length > 0) {
        const values = sql.join(
          outcomes.map((outcome) => sql`(${outcome.contactId}::uuid, ${outcome.status}, ${outcome.reason}, ${outcome.emailSendId}::uuid)`),
        );
        // a goal broadcast's recipient is exposed now, whatever became of the email: the
        // conversion window starts here, for both arms (broadcast-conversions.ts)
        await sql`
          update broadcast_recipients r
          set status = v.status, reason = v.reason, email_send_id = v.email_send_id, updated_at = now(),
              exposed_at = case when ${row.goal !== null} then now() end
          from (values ${values}) as v(contact_id, status, reason, email_send_id)
          where r.broadcast_id = ${broadcastId} and r.contact_id = v.contact_id and r.status = 'pending'`.execute(db);
      }
      // the sends have answered: their email_sends rows count for the caps from now on
      await releaseCapClaims(db, claimed);
    }
    return due.length;
  });
}
