import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/database';
import { NAMED_STATEMENT } from '../db/named-statements';
import type { EmailSendRow, EmailStatus } from '../db/schema';
import { isUniqueViolation } from '../db/pg-errors';
import type { EmailDeps } from './email-deps';
import { markEmailFailed } from './email-failures';
import type { SendEmailResult } from './send-email-types';

/** Statuses that mean the provider accepted the message: never send such a row again. */
const ACCEPTED: readonly EmailStatus[] = ['sent', 'delivered', 'opened', 'clicked', 'bounced', 'complained'];

/** The answer of a send that has ended (accepted, failed, or dropped as unknown); undefined while it has not. */
export function endedAnswer(row: EmailSendRow): SendEmailResult | undefined {
  if (ACCEPTED.includes(row.status)) return { status: 'sent', emailSendId: row.id };
  if (row.status === 'failed') return { status: 'failed', emailSendId: row.id, reason: row.errorMessage ?? 'failed' };
  if (row.status === 'unknown_dropped') return { status: 'failed', emailSendId: row.id, reason: row.errorMessage ?? 'unknown_dropped', dropped: true };
  // never sent, never to be: its broadcast was cancelled while the send rate held it back, or a
  // retry was refused (endRefused), whose reason every later call with its key answers again
  if (row.status === 'cancelled') return { status: 'skipped', reason: row.errorMessage ?? 'cancelled' };
  return undefined;
}

/**
 * Records one accepted send; `also`: further common table expressions for the same statement,
 * which may reference `sent` (the updated row's id). A provider message id that another send already holds (the unique
 * index; SES never repeats one, the SES emulator's random 9-digit ids do about once per 100,000)
 * cannot be stored: the message did leave, so the send ends "delivery unknown" in the DLQ at once
 * instead of throwing, which would fail the caller's whole step (a broadcast's chunks) into retries.
 */
export async function recordSent(deps: EmailDeps, row: EmailSendRow, messageId: string, also?: RawBuilder<unknown>): Promise<SendEmailResult> {
  try {
    await markSent(deps.db, row.id, messageId, also);
    return { status: 'sent', emailSendId: row.id };
  } catch (error) {
    if (!isUniqueViolation(error, 'email_sends_provider_message_idx')) throw error;
    return failForGood(deps, row, `Delivery unknown: the provider accepted it as ${messageId}, a message id another send already holds`);
  }
}

/**
 * `sent`, unless SES's own events got there first (event publishing: the Send event settles a send
 * by its tag, and a Delivery or Bounce may follow before the attempt records SES's answer): a
 * send never moves backwards.
 */
const SENT_STATUS = sql`case when status in ('queued', 'rendered', 'failed', 'unknown_dropped') then 'sent' else status end`;

/** Marks one accepted send sent, with `also` (see recordSent) in the same statement. */
async function markSent(db: Db, emailSendId: string, messageId: string, also?: RawBuilder<unknown>): Promise<void> {
  const sentAt = new Date();
  await sql`${NAMED_STATEMENT}
    with sent as (
      update email_sends set status = ${SENT_STATUS}, provider_message_id = ${messageId}, sent_at = coalesce(sent_at, ${sentAt}), error_message = null, updated_at = ${sentAt}
      where id = ${emailSendId}
      returning id
    )${also === undefined ? sql`` : sql`, ${also}`}
    select id from sent`.execute(db);
}

/** An accepted send of a batch, as its flush records it (markAllSent). */
export interface SentRecord {
  emailSendId: string;
  messageId: string;
  sentAt: Date;
}

/**
 * Marks many accepted sends sent in one statement, each with its own provider message id (a
 * broadcast's "sent" flush, send-email-batch.ts), by SENT_STATUS as markSent: never backwards.
 */
export async function markAllSent(db: Db, records: readonly SentRecord[]): Promise<void> {
  const values = sql.join(records.map((record) => sql`(${record.emailSendId}::uuid, ${record.messageId}, ${record.sentAt}::timestamptz)`));
  await sql`
      update email_sends e set status = ${SENT_STATUS}, provider_message_id = v.message_id, sent_at = coalesce(e.sent_at, v.sent_at), error_message = null, updated_at = v.sent_at
      from (values ${values}) as v(id, message_id, sent_at)
      where e.id = v.id`.execute(db);
}

/**
 * Ends a send an earlier attempt admitted but did not send, which admitSends now refuses (the
 * address suppressed since, …: attemptSend in send-email.ts): `cancelled` with the refusal's
 * reason, so no later retry of its key sends it. Only a row nobody holds the claim of and the
 * provider never accepted: false when another attempt claimed or ended it meanwhile.
 */
export async function endRefused(db: Db, row: EmailSendRow, reason: string): Promise<boolean> {
  const ended = await db
    .updateTable('emailSends')
    .set({ status: 'cancelled', errorMessage: reason, updatedAt: new Date() })
    .where('id', '=', row.id)
    .where('status', 'in', ['queued', 'rendered'])
    .where('sendStartedAt', 'is', null)
    .where('providerMessageId', 'is', null)
    .executeTakeFirst();
  return ended.numUpdatedRows === 1n;
}

export async function failForGood(deps: EmailDeps, row: EmailSendRow, reason: string): Promise<SendEmailResult> {
  const failed = await markEmailFailed(deps.db, row.id, reason);
  if (failed === undefined) {
    const current = await deps.db.selectFrom('emailSends').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow();
    if (ACCEPTED.includes(current.status)) return { status: 'sent', emailSendId: current.id };
    return { status: 'failed', emailSendId: current.id, reason: current.errorMessage ?? reason };
  }
  deps.logger?.warn({ emailSendId: row.id, templateKey: row.templateKey, reason }, 'email send failed for good; recorded in the DLQ');
  return { status: 'failed', emailSendId: row.id, reason };
}
