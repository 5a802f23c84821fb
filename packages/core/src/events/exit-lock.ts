import { sql } from 'kysely';
import type { Db } from '../db/database';
import { NAMED_STATEMENT } from '../db/named-statements';

/*
 * The per-person lock that orders an exit event's store and a run's entry, so neither misses the
 * other (docs/operations.md, "What to expect of an outage"). Without it, an exit stored while the
 * person's run entered went unapplied when the store statement read the live states before the
 * entry's state was committed and the entry's look-back for exit events (exit-on-entry.ts) read
 * the events before the exit was committed: each reads a snapshot taken at its statement's start.
 * - A store whose batch has an event passing an exit rule or meeting a journey's goal (which exits
 *   or converts) holds its users' locks from before its statement to its commit (`lockExitsOf`),
 *   so its snapshot comes after whatever held them.
 * - An entry, its state committed, waits for the holder, if any, before its look-back reads
 *   (`awaitExitsInFlight`): an exit that held the lock is committed by then and the look-back sees
 *   it; one that takes the lock after the wait reads the state and exits it itself.
 * Only these pay: an event that passes no exit rule and meets no goal takes nothing, and a journey
 * without exit rules or a goal has no look-back. Keys: two int4s, the lock's name and the user id, hashed (a collision
 * only makes two people wait for each other).
 */

/** Holds the exit locks of `userIds` until the transaction `trx` ends, taken in one order so two stores cannot deadlock. */
export async function lockExitsOf(trx: Db, userIds: readonly string[]): Promise<void> {
  await sql`
    select pg_advisory_xact_lock(hashtext('waymark:user-exits'), k) from (
      select distinct hashtext(u) as k from unnest(${userIds}::text[]) as u order by 1
    ) as keys`.execute(trx);
}

/** Waits until no store holds `userId`'s exit lock: outside a transaction the lock is let go as its statement ends. */
export async function awaitExitsInFlight(db: Db, userId: string): Promise<void> {
  // by name, as every statement of a journey entry (named-statements.ts)
  await sql`${NAMED_STATEMENT}select pg_advisory_xact_lock(hashtext('waymark:user-exits'), hashtext(${userId}))`.execute(db);
}
