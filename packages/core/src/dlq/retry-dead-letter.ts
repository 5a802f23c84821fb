import type { Db } from '../db/database';
import type { DlqEntryRow } from '../db/schema';
import { AppError, conflict, isAppError, notFound } from '../errors/app-error';
import { claimDlqEntryForRetry, DLQ_NOT_FOUND, releaseDlqEntry } from './dlq-entries';
import type { DeadLetterRetryHandlers } from './retry-handlers';

/**
 * SPEC §3: pending → retried with retriedAt, the task re-queued. The claim comes first so a
 * double click re-queues once; if the re-queue itself fails the entry is released back to
 * pending (with the new error) and the caller gets a 503 to try again later.
 */
export async function retryDeadLetter(db: Db, id: string, handlers: DeadLetterRetryHandlers): Promise<DlqEntryRow> {
  const current = await db.selectFrom('dlqEntries').select(['source', 'status']).where('id', '=', id).executeTakeFirst();
  if (current === undefined) throw notFound(DLQ_NOT_FOUND);
  const retrier = handlers.find(current.source);
  if (retrier === undefined && current.status === 'pending') {
    throw conflict(`DLQ entries from source '${current.source}' cannot be retried automatically; discard the entry instead`);
  }
  const entry = await claimDlqEntryForRetry(db, id);
  try {
    if (retrier === undefined) throw conflict(`DLQ entries from source '${entry.source}' cannot be retried automatically`);
    await retrier(entry);
  } catch (error) {
    await releaseDlqEntry(db, entry.id, isAppError(error) ? entry.error : (error as Error).message);
    if (isAppError(error) && error.status < 500) throw error;
    throw new AppError('unavailable', `Retry failed, the entry stays pending: ${(error as Error).message}`);
  }
  return entry;
}
