import type { Db } from '../db/database';
import type { BroadcastPhase, BroadcastRow } from '../db/schema';
import { assignLocalSendTimes, takeAudienceSnapshot } from './broadcast-audience';
import { pickWinner } from './broadcast-ab-test';
import { sendBroadcastChunk, type BroadcastSendDeps } from './broadcast-chunk';
import type { AbTest } from './broadcast-schemas';
import { findBroadcastRow } from './broadcasts';
import { rankByEngagement } from './broadcast-warmup';
import { sendCategory } from '../delivery/send-category';

/**
 * What the broadcast's workflow does next: stop, wait (until an instant, or until notified), or
 * take the next step at once. Every step reads the row, so the row is the one truth and the
 * workflow holds no state a restart, a replay or a continue-as-new could lose.
 */
export type BroadcastStep = { kind: 'done' } | { kind: 'next' } | { kind: 'wait'; until: number };

/**
 * A paused broadcast looks at its row again this often even without a notify (the api that paused
 * or resumed it may have died between its UPDATE and the notify).
 */
export const PAUSED_RECHECK_MS = 10 * 60_000;

export interface BroadcastRunDeps extends BroadcastSendDeps {
  /** DEFAULT_TIMEZONE: the zone of `localTime` for contacts without a `timezone` property */
  defaultTimeZone: string;
}

const wait = (until: number): BroadcastStep => ({ kind: 'wait', until });
const NEXT: BroadcastStep = { kind: 'next' };
const DONE: BroadcastStep = { kind: 'done' };

/** The earliest send time of pending recipients of `phases` after `now`, if any remain. */
async function pendingLater(db: Db, id: string, phases: readonly BroadcastPhase[]): Promise<{ any: boolean; next: Date | null }> {
  const row = await db
    .selectFrom('broadcastRecipients')
    .select((eb) => [eb.fn.countAll<string>().as('n'), eb.fn.min('sendAt').as('next')])
    .where('broadcastId', '=', id)
    .where('status', '=', 'pending')
    .where('phase', 'in', phases)
    .executeTakeFirstOrThrow();
  return { any: Number(row.n) > 0, next: row.next as Date | null };
}

/**
 * Ends the broadcast, unless a pause or cancel changed its row since this step read it: then the
 * next step reads the row again (a paused broadcast waits for its resume). Ending the run anyway
 * left a broadcast paused just as its last chunk finished with no run, so its resume set it
 * `sending` for ever.
 */
async function finish(db: Db, id: string, status: 'sent' | 'failed', error?: string): Promise<BroadcastStep> {
  const ended = await db
    .updateTable('broadcasts')
    .set({ status, completedAt: new Date(), updatedAt: new Date(), ...(error === undefined ? {} : { error }) })
    .where('id', '=', id)
    .where('status', 'in', ['sending', 'testing'])
    .executeTakeFirst();
  return ended.numUpdatedRows === 1n ? DONE : NEXT;
}

/**
 * A step sends chunk after chunk for up to this long: each chunk is its own transaction (pause and
 * cancel still wait for one chunk at most, and the next chunk finds the broadcast paused), and the
 * round trip through Temporal between two steps is paid once per this many chunks, not per chunk.
 */
const STEP_SENDING_MS = 10_000;

/** Sends the due recipients of `phases`, else says how long to wait, else answers undefined (none left). */
async function sendPhase(deps: BroadcastRunDeps, id: string, phases: readonly BroadcastPhase[], now: Date): Promise<BroadcastStep | undefined> {
  const started = Date.now();
  let claimed = 0;
  for (let chunk = await sendBroadcastChunk(deps, id, phases, now); chunk > 0; chunk = await sendBroadcastChunk(deps, id, phases, now)) {
    claimed += chunk;
    if (Date.now() - started >= STEP_SENDING_MS) break;
  }
  if (claimed > 0) return NEXT;
  const later = await pendingLater(deps.email.db, id, phases);
  if (!later.any) return undefined;
  return wait(Math.max(now.getTime(), later.next?.getTime() ?? now.getTime()));
}

/** An A/B test: its test recipients, the wait for results, then the winner for the rest. */
async function testStep(deps: BroadcastRunDeps, row: BroadcastRow, now: Date): Promise<BroadcastStep> {
  const db = deps.email.db;
  const sending = await sendPhase(deps, row.id, ['test'], now);
  if (sending !== undefined) return sending;
  if (row.testEndsAt === null) {
    const abTest = row.abTest as unknown as AbTest;
    const testEndsAt = new Date(now.getTime() + abTest.waitMinutes * 60_000);
    await db.updateTable('broadcasts').set({ testEndsAt, updatedAt: new Date() }).where('id', '=', row.id).where('testEndsAt', 'is', null).execute();
    return wait(testEndsAt.getTime());
  }
  if (row.testEndsAt.getTime() > now.getTime()) return wait(row.testEndsAt.getTime());
  const winner = await pickWinner(db, row);
  await db.transaction().execute(async (trx) => {
    const picked = await trx
      .updateTable('broadcasts')
      .set({ winnerVariantId: winner, status: 'sending', updatedAt: new Date() })
      .where('id', '=', row.id)
      .where('winnerVariantId', 'is', null)
      .where('status', 'in', ['testing', 'sending'])
      .returningAll()
      .executeTakeFirst();
    if (picked === undefined) return;
    await trx
      .updateTable('broadcastRecipients')
      .set({ variantId: winner })
      .where('broadcastId', '=', row.id)
      .where('phase', '=', 'rest')
      .where('status', '=', 'pending')
      .execute();
    // the rest's local send times count from now, not from when the test began
    await assignLocalSendTimes(trx, picked, now, deps.defaultTimeZone, 'rest');
  });
  return NEXT;
}

/** One step of the broadcast's run at `now` (the workflow's clock). Safe to run again. */
export async function runBroadcastStep(deps: BroadcastRunDeps, id: string, now: Date): Promise<BroadcastStep> {
  const db = deps.email.db;
  const row = await findBroadcastRow(db, id);
  if (row === undefined) return DONE;
  switch (row.status) {
    case 'draft':
    case 'sent':
    case 'cancelled':
    case 'failed':
      return DONE;
    case 'paused':
      return wait(now.getTime() + PAUSED_RECHECK_MS);
    case 'scheduled': {
      if (row.scheduledAt !== null && row.scheduledAt.getTime() > now.getTime()) return wait(row.scheduledAt.getTime());
      await db.updateTable('broadcasts').set({ status: 'sending', updatedAt: new Date() }).where('id', '=', id).where('status', '=', 'scheduled').execute();
      return NEXT;
    }
    case 'sending':
    case 'testing': {
      if (row.startedAt === null) {
        const engagedFirst = await rankByEngagement(db, deps.email.delivery.policy, sendCategory(deps.email.categories, row.category), now);
        const taken = await takeAudienceSnapshot(db, row, now, deps.defaultTimeZone, engagedFirst);
        return taken ? NEXT : finish(db, id, 'failed', 'The audience segment was deleted before sending started');
      }
      if (row.abTest !== null && row.winnerVariantId === null) return testStep(deps, row, now);
      const sending = await sendPhase(deps, id, ['all', 'rest'], now);
      return sending ?? finish(db, id, 'sent');
    }
  }
}
