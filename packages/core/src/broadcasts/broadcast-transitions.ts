import type { Db } from '../db/database';
import type { BroadcastRow, BroadcastStatus } from '../db/schema';
import { badRequest, conflict, unavailable } from '../errors/app-error';
import type { BackgroundJobs } from '../jobs/background-jobs';
import { getBroadcast, getBroadcastRow, type Broadcast } from './broadcasts';
import { lockForTransition } from './broadcast-transition-lock';

/**
 * The operator's side of a broadcast's life (docs/broadcasts.md, "States"): each transition is one
 * conditional UPDATE, so two clicks, a retried request or a race with the workflow cannot take a
 * transition that does not exist (409 names the status). The row is the truth; the workflow is
 * notified to read it again.
 *
 *   draft ──send──▶ scheduled | sending ──▶ (testing ──▶ sending) ──▶ sent
 *   scheduled | sending | testing ──pause──▶ paused ──resume──▶ the status it was paused from
 *   scheduled | sending | testing | paused ──cancel──▶ cancelled
 */
export interface BroadcastTransitionDeps {
  db: Db;
  jobs: BackgroundJobs;
}

const RUNNING: readonly BroadcastStatus[] = ['scheduled', 'sending', 'testing'];

function notAllowed(action: string, row: BroadcastRow) {
  return conflict(`A ${row.status} broadcast cannot be ${action}`);
}

/** POST …/send: 202 with `scheduled` when scheduledAt is ahead, else `sending`; 409 unless draft. */
export async function sendBroadcast(deps: BroadcastTransitionDeps, id: string, now = new Date()): Promise<Broadcast> {
  const current = await getBroadcastRow(deps.db, id);
  if (current.status !== 'draft') {
    await ensureRun(deps, current);
    throw notAllowed('sent', current);
  }
  if (current.segmentId === null && 'segmentId' in (current.audience as object))
    throw badRequest('audience.segmentId: the segment was deleted; choose another audience');
  const status = current.scheduledAt !== null && current.scheduledAt > now ? 'scheduled' : 'sending';
  const started = await deps.db
    .updateTable('broadcasts')
    .set({ status, sendRequestedAt: now, updatedAt: now })
    .where('id', '=', id)
    .where('status', '=', 'draft')
    .returning('id')
    .executeTakeFirst();
  // a second send that raced this one: it saw draft too, but only one UPDATE matched
  if (started === undefined) throw notAllowed('sent', await getBroadcastRow(deps.db, id));
  try {
    await deps.jobs.start('broadcast', id);
  } catch (error) {
    await deps.db
      .updateTable('broadcasts')
      .set({ status: 'failed', error: `could not start the broadcast: ${(error as Error).message}`, completedAt: new Date(), updatedAt: new Date() })
      .where('id', '=', id)
      .execute();
    throw unavailable('The workflow service is unreachable; the broadcast was not started');
  }
  return getBroadcast(deps.db, id);
}

/**
 * A broadcast out of draft whose run was never started: the api that sent it died between its
 * UPDATE and the start. A retried send (still 409: it is not a draft) starts the run, which reads
 * the row and carries on; without it the broadcast would read `sending` for ever.
 */
async function ensureRun(deps: BroadcastTransitionDeps, row: BroadcastRow): Promise<void> {
  if (![...RUNNING, 'paused'].includes(row.status) || (await deps.jobs.status('broadcast', row.id)) !== 'not_found') return;
  try {
    await deps.jobs.start('broadcast', row.id);
  } catch (error) {
    // a concurrent retry started it first
    if ((await deps.jobs.status('broadcast', row.id)) === 'not_found') throw error;
  }
}

async function transition(deps: BroadcastTransitionDeps, id: string, action: string, update: (trx: Db) => Promise<boolean>): Promise<Broadcast> {
  const current = await getBroadcastRow(deps.db, id);
  const done = await deps.db.transaction().execute(async (trx) => {
    // waits for the chunk in flight; no chunk starts until this commits
    await lockForTransition(trx, id);
    return update(trx);
  });
  if (!done) throw notAllowed(action, await getBroadcastRow(deps.db, current.id));
  await deps.jobs.notify('broadcast', id);
  return getBroadcast(deps.db, id);
}

/** POST …/pause: a chunk in flight finishes (broadcast-transition-lock.ts), nothing more is sent until resume. */
export function pauseBroadcast(deps: BroadcastTransitionDeps, id: string): Promise<Broadcast> {
  return transition(deps, id, 'paused', async (trx) => {
    const result = await trx
      .updateTable('broadcasts')
      .set((eb) => ({ status: 'paused', pausedFrom: eb.ref('status') as never, pausedReason: null, updatedAt: new Date() }))
      .where('id', '=', id)
      .where('status', 'in', RUNNING)
      .executeTakeFirst();
    return result.numUpdatedRows === 1n;
  });
}

export function resumeBroadcast(deps: BroadcastTransitionDeps, id: string): Promise<Broadcast> {
  return transition(deps, id, 'resumed', async (trx) => {
    const result = await trx
      .updateTable('broadcasts')
      .set((eb) => ({ status: eb.fn.coalesce('pausedFrom', eb.val('sending')) as never, pausedFrom: null, pausedReason: null, updatedAt: new Date() }))
      .where('id', '=', id)
      .where('status', '=', 'paused')
      .executeTakeFirst();
    return result.numUpdatedRows === 1n;
  });
}

/** POST …/cancel: recipients not yet sent, and their sends held back by the send rate, are marked cancelled; once it answers, nothing more is sent. */
export function cancelBroadcast(deps: BroadcastTransitionDeps, id: string): Promise<Broadcast> {
  return transition(deps, id, 'cancelled', async (trx) => {
    const now = new Date();
    // after the chunk in flight, so no email of this broadcast leaves after this commits
    const result = await trx
      .updateTable('broadcasts')
      .set({ status: 'cancelled', pausedFrom: null, completedAt: now, updatedAt: now })
      .where('id', '=', id)
      .where('status', 'in', [...RUNNING, 'paused'])
      .executeTakeFirst();
    if (result.numUpdatedRows !== 1n) return false;
    await trx
      .updateTable('broadcastRecipients')
      .set({ status: 'cancelled', updatedAt: now })
      .where('broadcastId', '=', id)
      .where('status', '=', 'pending')
      .execute();
    // sends the send rate held back (queued, never claimed: no chunk runs while this holds the
    // transition lock) end cancelled rather than queued forever
    await trx
      .updateTable('emailSends')
      .set({ status: 'cancelled', updatedAt: now })
      .where('broadcastId', '=', id)
      .where('status', '=', 'queued')
      .where('sendStartedAt', 'is', null)
      .where('providerMessageId', 'is', null)
      .execute();
    return true;
  });
}
