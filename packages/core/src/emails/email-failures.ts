import { recordDeadLetter } from '../dlq/dead-letters';
import type { Db } from '../db/database';
import type { EmailSendRow, JsonObject } from '../db/schema';

/** What the DLQ keeps so an operator (or POST /v1/admin/dlq/{id}/retry) can send the email again. */
export function emailRetryPayload(row: EmailSendRow): JsonObject {
  return {
    emailSendId: row.id,
    templateKey: row.templateKey,
    to: row.toEmail,
    from: row.fromEmail,
    userId: row.userId,
    category: row.category,
    journeyStateId: row.journeyStateId,
    idempotencyKey: row.idempotencyKey,
    data: row.data,
  };
}

/**
 * A send that will not be retried any more: the row becomes `failed` (unless a concurrent
 * attempt already sent it) and a DLQ entry (source `email`) records how to retry it.
 */
export async function markEmailFailed(db: Db, emailSendId: string, error: string): Promise<EmailSendRow | undefined> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('emailSends')
      .set({ status: 'failed', errorMessage: error.slice(0, 2000), updatedAt: new Date() })
      .where('id', '=', emailSendId)
      .where('status', 'in', ['queued', 'rendered'])
      .where('providerMessageId', 'is', null)
      .returningAll()
      .executeTakeFirst();
    if (row === undefined) return undefined;
    await recordDeadLetter(trx, {
      source: 'email',
      sourceId: row.id,
      payload: emailRetryPayload(row),
      error: row.errorMessage ?? error,
      retryCount: row.sendAttempts,
    });
    return row;
  });
}

/**
 * Puts a failed send back in the queue (DLQ retry); the caller then runs `sendEmail` again with
 * the same idempotency key, so the retried email is the same row.
 */
export async function requeueFailedEmail(db: Db, emailSendId: string): Promise<EmailSendRow | undefined> {
  return db
    .updateTable('emailSends')
    .set({ status: 'queued', errorMessage: null, sendStartedAt: null, sendAttempts: 0, updatedAt: new Date() })
    .where('id', '=', emailSendId)
    .where('status', '=', 'failed')
    .where('providerMessageId', 'is', null)
    .returningAll()
    .executeTakeFirst();
}
