import type { Db } from '../db/database';
import type { BreakerState } from '../db/schema';
import { mailboxProviderOf } from '../delivery/mailbox-provider';
import { breakerKeyOf, sendGroupOf } from './reputation-counts';

/** What the send paths need of the breaker: every group and provider whose breaker is not `ok`, keyed by `breakerKeyOf`. */
export interface BreakerSnapshot {
  tripped: ReadonlyMap<string, Exclude<BreakerState, 'ok'>>;
}

/** The breaker's state as the send paths read it: one small query (a row per tripped group and provider). */
export async function readBreakerSnapshot(db: Db): Promise<BreakerSnapshot> {
  const rows = await db.selectFrom('reputationBreakers').select(['sendGroup', 'provider', 'state']).where('state', '!=', 'ok').execute();
  return { tripped: new Map(rows.map((row) => [breakerKeyOf({ group: row.sendGroup, provider: row.provider }), row.state as Exclude<BreakerState, 'ok'>])) };
}

/**
 * A snapshot read again at most every `ttlMs`: every send asks the breaker (whether it is held,
 * what it is worth to the send rate), and one query per send for a state that changes a few times
 * a day would be most of a send's reads. Another process's change reaches this one within `ttlMs`;
 * a change this process makes itself (the webhook's judge, the schedule, a manual resume) forgets
 * the snapshot at once (breaker.ts).
 */
export interface BreakerStates {
  read(): Promise<BreakerSnapshot>;
  /** the next read asks the database */
  forget(): void;
}

/** How stale a process's snapshot may be: far inside the breaker's own pace (its window is hours). */
export const BREAKER_SNAPSHOT_TTL_MS = 5_000;

export function createBreakerStates(db: Db, ttlMs = BREAKER_SNAPSHOT_TTL_MS, now: () => number = Date.now): BreakerStates {
  // the read itself is kept, from its start: sends that ask while it runs share it, and a forget()
  // after a change drops a read that may have started before the change
  let cached: { snapshot: Promise<BreakerSnapshot>; at: number } | undefined;
  return {
    read() {
      if (cached !== undefined && now() - cached.at < ttlMs) return cached.snapshot;
      const entry = { snapshot: readBreakerSnapshot(db), at: now() };
      cached = entry;
      // a failed read is not kept: the next send asks again
      entry.snapshot.catch(() => {
        if (cached === entry) cached = undefined;
      });
      return entry.snapshot;
    },
    forget() {
      cached = undefined;
    },
  };
}

/** One send as the breaker sees it: its group (a required category or not) and its mailbox provider. */
export interface BreakerSend {
  required: boolean;
  to: string;
}

export type ReputationHold = { held: false } | { held: true; reason: 'reputation'; provider: string };

/**
 * Whether the breaker holds one send: marketing mail (a category that is not required) to a
 * mailbox provider whose marketing breaker is paused. Mail the person asked for (a required
 * category) always flows: a receipt or a password reset held back hurts more than it protects.
 * A pure function of the snapshot, so whichever path decides a send asks it the same way.
 */
export function reputationHold(snapshot: BreakerSnapshot, send: BreakerSend): ReputationHold {
  if (send.required || snapshot.tripped.size === 0) return { held: false };
  const provider = mailboxProviderOf(send.to);
  return snapshot.tripped.get(breakerKeyOf({ group: 'marketing', provider })) === 'paused' ? { held: true, reason: 'reputation', provider } : { held: false };
}

/**
 * What one send is worth to the send rate (send-rate/send-rate-governor.ts, `acquire`): two tokens
 * when its group and provider's breaker is tripped (`slowed`, or `paused` for the transactional
 * mail that keeps flowing), else one. A stream of sends worth two goes at half the rate, so a
 * tripped group's share of SES's send rate halves while the rest of the budget serves the others.
 */
export function sendRateTokens(snapshot: BreakerSnapshot, send: BreakerSend): 1 | 2 {
  if (snapshot.tripped.size === 0) return 1;
  return snapshot.tripped.has(breakerKeyOf({ group: sendGroupOf(send.required), provider: mailboxProviderOf(send.to) })) ? 2 : 1;
}
