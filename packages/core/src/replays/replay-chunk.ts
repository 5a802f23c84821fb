import type { Db } from '../db/database';
import { selectEvents } from '../events/events';
import { replayStoredEvents, type Ingest, type ReplayError } from './replay-event';
import { getReplayProgress, MAX_REPORTED_REPLAY_ERRORS, recordReplayChunk, replayCursor } from './replay-jobs';

/** The idempotency key of one event's replay by one job: a chunk run again stores nothing twice. */
export function replayIdempotencyKey(jobId: string, eventId: string): string {
  return `replay-job:${jobId}:${eventId}`;
}

/**
 * Replays snapshot positions [start, start + size) of a job and records them; returns the next
 * cursor. A chunk run again after a crash finds the events it already stored by their idempotency
 * key (nothing is stored or routed twice) and the counters move once (recordReplayChunk).
 */
export async function replayChunk(db: Db, ingest: Ingest, input: { jobId: string; start: number; size: number }, onEach?: () => void): Promise<number> {
  const job = await getReplayProgress(db, input.jobId);
  const cursor = replayCursor(job);
  if (cursor > input.start) return cursor;
  const end = Math.min(job.matched, input.start + input.size);
  const positions = await db
    .selectFrom('replayJobEvents')
    .select(['position', 'eventId'])
    .where('jobId', '=', input.jobId)
    .where('position', '>=', input.start)
    .where('position', '<', end)
    .orderBy('position')
    .execute();
  const ids = positions.map((row) => row.eventId);
  const events = ids.length === 0 ? [] : await selectEvents(db).where('id', 'in', ids).execute();
  const byId = new Map(events.map((event) => [event.id, event]));
  // deleted since the snapshot (contact erasure): reported, never silently skipped
  const gone: ReplayError[] = ids.filter((id) => !byId.has(id)).map((eventId) => ({ eventId, error: 'Event not found' }));
  const ordered = ids.flatMap((id) => byId.get(id) ?? []);
  const result = await replayStoredEvents(ingest, ordered, { idempotencyKeyOf: (event) => replayIdempotencyKey(input.jobId, event.id), onEach });
  const errors = [...gone, ...result.errors];
  const room = Math.max(0, MAX_REPORTED_REPLAY_ERRORS - job.errors.length);
  await recordReplayChunk(db, { jobId: input.jobId, start: input.start, processed: result.replayed, failed: errors.length, errors: errors.slice(0, room) });
  return end;
}
