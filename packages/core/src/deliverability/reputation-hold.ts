import type { Db } from '../db/database';
import { mailboxProviderOf } from '../delivery/mailbox-provider';

/** What the send paths need of the breaker: the mailbox providers whose marketing mail is paused. */
export interface BreakerSnapshot {
  pausedMarketing: ReadonlySet<string>;
}

export const NO_HOLDS: BreakerSnapshot = { pausedMarketing: new Set() };

/** The breaker's state as the send paths read it: one small query (a row per tripped group and provider). */
export async function readBreakerSnapshot(db: Db): Promise<BreakerSnapshot> {
  const rows = await db.selectFrom('reputationBreakers').select('provider').where('sendGroup', '=', 'marketing').where('state', '=', 'paused').execute();
  return { pausedMarketing: new Set(rows.map((row) => row.provider)) };
}

export type ReputationHold = { held: false } | { held: true; reason: 'reputation'; provider: string };

/**
 * Whether the breaker holds one send: marketing mail (a category that is not required) to a
 * mailbox provider whose marketing breaker is paused. Mail the person asked for (a required
 * category) always flows: a receipt or a password reset held back hurts more than it protects.
 * A pure function of the snapshot, so whichever path decides a send asks it the same way.
 */
export function reputationHold(snapshot: BreakerSnapshot, send: { required: boolean; to: string }): ReputationHold {
  if (send.required || snapshot.pausedMarketing.size === 0) return { held: false };
  const provider = mailboxProviderOf(send.to);
  return snapshot.pausedMarketing.has(provider) ? { held: true, reason: 'reputation', provider } : { held: false };
}
