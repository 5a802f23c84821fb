import type { Db } from '../db/database';
import { selectEvents } from '../events/events';
import { replayStoredEvents, type Ingest, type ReplayError } from './replay-event';
import { applySelection, missingIds, requireSelection, type ReplaySelection } from './replay-selection';

/**
 * The most events one synchronous replay (POST /v1/admin/events/replay) takes. It answers inside
 * its request, REPLAY_LANES events at a time, so this bound is what keeps the answer under a
 * second (bench/event-replay.ts); larger replays are background jobs (replay-jobs.ts).
 */
export const REPLAY_MAX_LIMIT = 50;

/** Replays up to `limit` (at most REPLAY_MAX_LIMIT) matched events inside the caller's request. */
export async function replayEvents(deps: { db: Db; ingest: Ingest }, selection: ReplaySelection): Promise<{ replayed: number; errors: ReplayError[] }> {
  requireSelection(selection);
  const limit = Math.min(selection.limit ?? REPLAY_MAX_LIMIT, REPLAY_MAX_LIMIT);
  const rows = await applySelection(selectEvents(deps.db), selection).orderBy('occurredAt', 'asc').orderBy('id', 'asc').limit(limit).execute();
  const missing = missingIds(
    selection,
    rows.map((row) => row.id),
  ).map((eventId) => ({ eventId, error: 'Event not found' }));
  const result = await replayStoredEvents(deps.ingest, rows);
  return { replayed: result.replayed, errors: [...missing, ...result.errors] };
}
