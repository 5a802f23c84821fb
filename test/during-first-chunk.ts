import { sql } from 'kysely';
import type { Db } from '@waymark/core/db/database';
import { broadcastTransitionLockKey } from '@waymark/core/broadcasts/broadcast-transition-lock';
import { lockCapRooms } from '@waymark/core/delivery/frequency-caps';
import { eventually } from './eventually';

export interface DuringFirstChunkInput<T> {
  broadcastId: string;
  /** every recipient's address: whichever the first chunk takes, it waits */
  emails: readonly string[];
  /** POST …/send */
  send: () => Promise<unknown>;
  /** POST …/pause or …/cancel */
  transition: () => Promise<T>;
}

/**
 * Takes a transition (pause, cancel) while the broadcast's first chunk is in flight, on a box of
 * any speed. Waiting for the first emails and then asking raced the run: on a fast box, or with
 * the test process starved, every chunk and even the finish could land before the transition
 * reached the row.
 *
 * The recipients' frequency-cap locks are taken first, in a transaction left open, so the chunk
 * (holding the broadcast row) waits in its cap check; the broadcast's category must have a cap in
 * the delivery policy (`newsletter` has). The transition is asked; once it waits behind the chunk,
 * the locks are let go: the chunk sends and commits, and the transition goes before a second chunk
 * or the finish (broadcast-transition-lock.ts). The locks are this test's own addresses', so no
 * other test's sends wait on them, and a backend found waiting on them is this broadcast's chunk.
 */
export async function duringFirstChunk<T>(db: Db, input: DuringFirstChunkInput<T>): Promise<T> {
  const hold = await db.startTransaction().execute();
  try {
    const holder = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(hold)).rows[0]!.pid;
    const emails = input.emails.map((email) => email.toLowerCase());
    await lockCapRooms(hold, emails);
    await input.send();
    await eventually(
      async () => (await sql<{ pid: number }>`select pid from pg_stat_activity where ${holder} = any(pg_blocking_pids(pid))`.execute(db)).rows,
      (rows) => rows.length > 0,
      { intervalMs: 20, timeoutMs: 60_000, what: 'the first chunk to wait on the cap locks' },
    );
    let settled = false;
    const answer = input.transition().finally(() => {
      settled = true;
    });
    // the transition queued on this broadcast's transition lock (a transition that answers
    // without it, a 4xx, ends the wait too)
    await eventually(
      async () =>
        settled ||
        (
          await sql<{ waiting: boolean }>`
            select exists (
              select 1 from pg_locks, (select ${broadcastTransitionLockKey(input.broadcastId)}) as k (name, id)
              where locktype = 'advisory' and not granted and objsubid = 2
                and classid::text::bigint = k.name::bigint & 4294967295
                and objid::text::bigint = k.id::bigint & 4294967295
            ) as waiting`.execute(db)
        ).rows[0]!.waiting,
      (done) => done,
      { intervalMs: 20, timeoutMs: 60_000, what: 'the transition to wait behind the first chunk' },
    );
    return answer;
  } finally {
    await hold.rollback().execute();
  }
}
