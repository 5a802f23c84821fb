import type { Db } from '../db/database';
import type { DlqEntryRow } from '../db/schema';
import { AppError, conflict, isAppError, notFound } from '../errors/app-error';
import type { DeadLetterSource } from './dead-letters';
import { claimDlqEntryForRetry, DLQ_NOT_FOUND, releaseDlqEntry } from './dlq-entries';

/** Re-queues one parked task through its original pipeline; throws when it could not. */
export type DeadLetterRetrier = (entry: DlqEntryRow) => Promise<void>;
export type DeadLetterRetriers = Partial<Record<DeadLetterSource, DeadLetterRetrier>>;

function isKnownSource(source: string, retriers: DeadLetterRetriers): source is DeadLetterSource {
  return Object.hasOwn(retriers, source);
}

/**
 * SPEC §3: pending → retried with retriedAt, the task re-queued. The claim comes first so a
 * double click re-queues once; if the re-queue itself fails the entry is released back to
 * pending (with the new error) and the caller gets a 503 to try again later.
 */
export async function retryDeadLetter(db: Db, id: string, retriers: DeadLetterRetriers): Promise<DlqEntryRow> {
  const current = await db.selectFrom('dlqEntries').select(['source', 'status']).where('id', '=', id).executeTakeFirst();
  if (current === undefined) throw notFound(DLQ_NOT_FOUND);
  const retrier = isKnownSource(current.source, retriers) ? retriers[current.source] : undefined;
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
