/**
 * What the row counter (migration 0070) costs a write: single-row INSERTs into `events` on a few
 * connections, alternating rounds with the counter trigger enabled and disabled on the same table
 * in the same run, so the ratio (with / without) compares like with like. Rows a round without the
 * trigger inserted are deleted with the trigger still off, so the counter stays exact afterwards.
 */
import { sql } from 'kysely';
import type { Db } from '@waymark/core/db/database';
import { ratioRow, type BenchRow } from './results';

async function insertsFor(db: Db, connections: number, milliseconds: number, source: string): Promise<number> {
  const until = Date.now() + milliseconds;
  let done = 0;
  await Promise.all(
    Array.from({ length: connections }, async (_, worker) => {
      while (Date.now() < until) {
        await db
          .insertInto('events')
          .values({ userId: `trigger-cost-${worker}`, event: 'bench.insert', properties: '{}', source })
          .execute();
        done += 1;
      }
    }),
  );
  return (done * 1000) / milliseconds;
}

async function setCounterTriggers(db: Db, enabled: boolean): Promise<void> {
  const action = sql.raw(enabled ? 'enable' : 'disable');
  await sql`alter table events ${action} trigger events_row_counts_insert, ${action} trigger events_row_counts_delete`.execute(db);
}

/** Inserts with the counter triggers off; their rows are deleted before the triggers come back. */
async function uncountedInserts(db: Db, connections: number, milliseconds: number): Promise<number> {
  await setCounterTriggers(db, false);
  try {
    const rate = await insertsFor(db, connections, milliseconds, 'bench-uncounted');
    await db.deleteFrom('events').where('source', '=', 'bench-uncounted').execute();
    return rate;
  } finally {
    await setCounterTriggers(db, true);
  }
}

export async function counterTriggerCost(db: Db, options: { connections: number; rounds: number; roundMs: number }): Promise<BenchRow> {
  const rates = { on: 0, off: 0 };
  await insertsFor(db, options.connections, 2000, 'bench-warmup');
  // A-B-B-A: neither side always runs first (autovacuum after a seed, a warming cache)
  for (let round = 0; round < options.rounds; round += 1) {
    const order = round % 2 === 0 ? [true, false] : [false, true];
    for (const counted of order) {
      if (counted) rates.on += await insertsFor(db, options.connections, options.roundMs, 'bench-counted');
      else rates.off += await uncountedInserts(db, options.connections, options.roundMs);
    }
  }
  const on = rates.on / options.rounds;
  const off = rates.off / options.rounds;
  console.log(`single-row INSERT into events: ${on.toFixed(0)}/s with the counter trigger, ${off.toFixed(0)}/s without (${options.connections} connections)`);
  return ratioRow(`events single-row INSERT with vs without the row counter trigger (${options.connections} connections)`, 'inserts/s', on, off, 0.9);
}
