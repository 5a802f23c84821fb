import type { Transaction } from 'kysely';
import type { Database } from '../db/schema';
import { reputationHold, type BreakerSnapshot } from '../deliverability/reputation-hold';
import { isRequired, type GateCategory } from '../preferences/send-gate';
import { resumeBroadcast, type BroadcastTransitionDeps } from './broadcast-transitions';

/** The reason a broadcast paused by the reputation breaker carries (docs/email.md, "Reputation breaker"). */
export const REPUTATION_PAUSE = 'reputation';

/**
 * Whether the reputation breaker holds any of the recipients a chunk is about to send to
 * (marketing mail to a mailbox provider whose breaker is paused): then the whole broadcast pauses
 * (`pauseForReputation`) rather than hold them one by one, and nothing of it leaves until the
 * breaker resumes, which resumes it.
 */
export function reputationHoldsAny(snapshot: BreakerSnapshot, category: GateCategory, recipients: readonly { email: string | null }[]): boolean {
  const required = isRequired(category);
  return recipients.some((recipient) => recipient.email !== null && reputationHold(snapshot, { required, to: recipient.email }).held);
}

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
