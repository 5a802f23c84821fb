import { sql } from 'kysely';
import type { JourneyStatus } from '../db/schema';

/**
 * A state in one of these is a live run: it may send, wait, exit or be cancelled, and a user has
 * at most one per journey (the partial unique index of migrations/0001_initial.ts).
 */
export const LIVE_STATUSES = ['active', 'waiting'] as const satisfies readonly JourneyStatus[];

export function isLiveStatus(status: JourneyStatus): boolean {
  return (LIVE_STATUSES as readonly JourneyStatus[]).includes(status);
}

/**
 * The set as a SQL list literal, `('active', 'waiting')`, for raw statements. A literal rather
 * than a bound array, so PostgreSQL can prove a query implies the partial index's predicate and
 * use the index (and so `on conflict ... where` names that index).
 */
export const LIVE_STATUS_LIST = sql.raw(`(${LIVE_STATUSES.map((status) => `'${status}'`).join(', ')})`);
