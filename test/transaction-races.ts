import { sql } from 'kysely';
import type { Db } from '@waymark/core/db/database';
import { eventually } from './eventually';

/** A call started and left running, with whether it has settled yet. */
export interface Flight<T> {
  settled: boolean;
  done: Promise<T>;
}

/**
 * What a test needs to force two writers of PostgreSQL into one order: calls left in flight, an
 * open transaction that holds what a statement will wait on, and which backends wait on which.
 * `dbOf` answers the test's pool, made in its `beforeAll`.
 */
export function transactionRaces(dbOf: () => Db) {
  const started = <T>(call: () => Promise<T>): Flight<T> => {
    const flight: Flight<T> = { settled: false, done: call() };
    const settle = () => {
      flight.settled = true;
    };
    void flight.done.then(settle, settle);
    return flight;
  };
  const pidOf = async (trx: Db) => (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)).rows[0]!.pid;
  /** the backends `pid` blocks */
  const blockedBy = async (pid: number) =>
    (await sql<{ pid: number }>`select pid from pg_stat_activity where ${pid} = any(pg_blocking_pids(pid)) order by pid`.execute(dbOf())).rows.map(
      (row) => row.pid,
    );
  /** waits until `flight` has settled or a backend more than `before` waits on `pid` */
  const waitsOn = (pid: number, flight: { settled: boolean }, what: string, before: readonly number[] = []) =>
    eventually(
      async () => (flight.settled ? 'settled' : (await blockedBy(pid)).find((blocked) => !before.includes(blocked))),
      (found) => found !== undefined,
      { intervalMs: 20, what },
    );
  /** `body` with a transaction left open, rolled back at its end whatever happens */
  const holding = async <T>(body: (hold: Db, holder: number) => Promise<T>): Promise<T> => {
    const hold = await dbOf().startTransaction().execute();
    try {
      return await body(hold, await pidOf(hold));
    } finally {
      await hold.rollback().execute();
    }
  };
  /**
   * `store`, a store of an event whose Idempotency-Key is `key`, started after the open transaction
   * `hold` took that key: the store statement takes its snapshot, then waits on the key, uncommitted
   * until the holder lets go. Resolves once it waits.
   */
  const storeHeldOnKey = async <T>(hold: Db, holder: number, key: string, store: () => Promise<T>): Promise<Flight<T>> => {
    await hold
      .insertInto('events')
      .values({ userId: `holder-${key}`, event: 'race.holder', properties: '{}', idempotencyKey: key, occurredAt: new Date() })
      .execute();
    const storing = started(store);
    if ((await waitsOn(holder, storing, 'the store to wait on its Idempotency-Key')) === 'settled') throw new Error('stored without waiting on its key');
    return storing;
  };
  return { started, pidOf, blockedBy, waitsOn, holding, storeHeldOnKey };
}
