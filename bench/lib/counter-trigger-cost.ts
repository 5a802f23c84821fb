/**
 * What the row counter (migration 0070) costs a write: single-row INSERTs into `events` on a few
 * connections, alternating rounds with the counter trigger enabled and disabled on the same table
 * in the same run, so the ratio (with / without) compares like with like. Rows a round without the
 * trigger inserted are deleted with the trigger still off, so the counter stays exact afterwards.
 * The same for the status counter of sends (migration 0140) on the send path's status changes.
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

/** A-B-B-A rounds of `measure` with the counter on and off (neither side always runs first: autovacuum after a seed, a warming cache); mean rates. */
async function abba(rounds: number, measure: (counted: boolean) => Promise<number>): Promise<{ on: number; off: number }> {
  const rates = { on: 0, off: 0 };
  for (let round = 0; round < rounds; round += 1) {
    for (const counted of round % 2 === 0 ? [true, false] : [false, true]) {
      if (counted) rates.on += await measure(true);
      else rates.off += await measure(false);
    }
  }
  return { on: rates.on / rounds, off: rates.off / rounds };
}

export async function counterTriggerCost(db: Db, options: { connections: number; rounds: number; roundMs: number }): Promise<BenchRow> {
  await insertsFor(db, options.connections, 2000, 'bench-warmup');
  const { on, off } = await abba(options.rounds, (counted) =>
    counted ? insertsFor(db, options.connections, options.roundMs, 'bench-counted') : uncountedInserts(db, options.connections, options.roundMs),
  );
  console.log(`single-row INSERT into events: ${on.toFixed(0)}/s with the counter trigger, ${off.toFixed(0)}/s without (${options.connections} connections)`);
  return ratioRow(`events single-row INSERT with vs without the row counter trigger (${options.connections} connections)`, 'inserts/s', on, off, 0.9);
}

/**
 * Status changes of sends (single-row UPDATEs, as the send path makes them) per second; each
 * connection moves sends of its own back and forth between `sent` and `delivered`, so every send
 * ends a round in the status it started it in.
 */
async function statusChangesFor(db: Db, connections: number, milliseconds: number): Promise<number> {
  const until = Date.now() + milliseconds;
  let done = 0;
  await Promise.all(
    Array.from({ length: connections }, async (_, worker) => {
      for (let n = 0; Date.now() < until; n += 1) {
        const key = `seed-${(n % 1000) * connections + worker + 1}`;
        for (const status of ['delivered', 'sent'] as const) {
          await db.updateTable('emailSends').set({ status, updatedAt: new Date() }).where('idempotencyKey', '=', key).execute();
          done += 1;
        }
      }
    }),
  );
  return (done * 1000) / milliseconds;
}

/**
 * What the status counter (migration 0140) costs the send path: a send's status changes with its
 * row trigger enabled and disabled, in A-B-B-A rounds. Needs the seeded sends (`seed-<n>`, all
 * `sent`, bench/lib/seed-large.ts); a round without the trigger leaves every send where it was, so
 * the counter stays exact.
 */
export async function statusCounterCost(db: Db, options: { connections: number; rounds: number; roundMs: number }): Promise<BenchRow> {
  const setTrigger = (enabled: boolean) =>
    sql`alter table email_sends ${sql.raw(enabled ? 'enable' : 'disable')} trigger email_sends_status_counts_update`.execute(db);
  await statusChangesFor(db, options.connections, 2000);
  const { on, off } = await abba(options.rounds, async (counted) => {
    if (counted) return statusChangesFor(db, options.connections, options.roundMs);
    await setTrigger(false);
    try {
      return await statusChangesFor(db, options.connections, options.roundMs);
    } finally {
      await setTrigger(true);
    }
  });
  console.log(`email status UPDATE: ${on.toFixed(0)}/s with the status counter trigger, ${off.toFixed(0)}/s without (${options.connections} connections)`);
  return ratioRow(`email_sends status change with vs without the status counter trigger (${options.connections} connections)`, 'updates/s', on, off, 0.9);
}
