import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/database';

/**
 * Orders a broadcast's chunks and its operator transitions (pause, resume, cancel), so a
 * transition waits for the chunk in flight and no more (docs/broadcasts.md, "States").
 *
 * The chunk's row lock alone did not: a transition waiting on the row is only woken when the
 * chunk commits, and the run's next chunk, asking a moment later, finds the row free and can take
 * it first, again and again on a busy box. An advisory lock is handed to its waiter at the moment
 * it is released, and a new shared request waits behind a queued exclusive one, so the transition
 * (exclusive) goes right after the chunk in flight (shared), and the next chunk finds the lock
 * taken and sends nothing.
 *
 * The key, as a select list: two int4s, the hashtext of the lock's name and of the broadcast id.
 * Both holds last to the transaction's end.
 */
export function broadcastTransitionLockKey(broadcastId: string): RawBuilder<unknown> {
  return sql`hashtext('waymark:broadcast-transition'), hashtext(${broadcastId})`;
}

/** Waits for the chunk in flight, if any; from here until the transaction ends no chunk starts. */
export async function lockForTransition(trx: Db, broadcastId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(${broadcastTransitionLockKey(broadcastId)})`.execute(trx);
}

/** False when a transition holds or waits for the lock: the chunk must not start. */
export async function lockForChunk(trx: Db, broadcastId: string): Promise<boolean> {
  const { rows } = await sql<{ free: boolean }>`
    select pg_try_advisory_xact_lock_shared(${broadcastTransitionLockKey(broadcastId)}) as free`.execute(trx);
  return rows[0]?.free === true;
}
