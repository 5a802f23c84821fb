import type { Transaction } from 'kysely';
import type { Database } from '../db/schema';
import { resumeBroadcast, type BroadcastTransitionDeps } from './broadcast-transitions';

/** The reason a broadcast paused by the reputation breaker carries (docs/email.md, "Reputation breaker"). */
export const REPUTATION_PAUSE = 'reputation';

/** Pauses a sending broadcast for the reputation breaker, inside its chunk's transaction. */
export async function pauseForReputation(trx: Transaction<Database>, broadcast: { id: string; status: string }): Promise<void> {
  await trx
    .updateTable('broadcasts')
    .set({ status: 'paused', pausedFrom: broadcast.status as 'sending' | 'testing', pausedReason: REPUTATION_PAUSE, updatedAt: new Date() })
    .where('id', '=', broadcast.id)
    .execute();
}

/** Resumes every broadcast the breaker paused (the breaker was resumed); their ids. */
export async function resumeReputationPausedBroadcasts(deps: BroadcastTransitionDeps): Promise<string[]> {
  const rows = await deps.db.selectFrom('broadcasts').select('id').where('status', '=', 'paused').where('pausedReason', '=', REPUTATION_PAUSE).execute();
  for (const row of rows) await resumeBroadcast(deps, row.id);
  return rows.map((row) => row.id);
}
