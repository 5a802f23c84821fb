import { runInKeyedLanes } from '../concurrency/keyed-lanes';
import type { StoredEvent } from '../events/events';
import type { IngestInput, IngestResult } from '../events/ingest';

export type Ingest = (input: IngestInput) => Promise<IngestResult>;

export interface ReplayError {
  eventId: string;
  error: string;
}

/**
 * Events in flight at once. Each one is its store statement's round trip (its journey starts follow
 * from the event outbox, after the commit); against a database across a network the time goes to
 * those round trips, so a handful in parallel divides it while leaving most of the database pool
 * (20) to the requests beside it.
 */
export const REPLAY_LANES = 8;

/**
 * Pushes events back through the pipeline, each stored as a new event with source `replay` (it
 * starts runs of its own and shows up in the event log). One user's events go in their order;
 * different users' side by side. `idempotencyKeyOf` lets a resumed job skip what it already stored.
 */
export async function replayStoredEvents(
  ingest: Ingest,
  events: readonly StoredEvent[],
  options: { idempotencyKeyOf?: (event: StoredEvent) => string; onEach?: () => void } = {},
): Promise<{ replayed: number; errors: ReplayError[] }> {
  const errors: ReplayError[] = [];
  let replayed = 0;
  await runInKeyedLanes(
    events,
    (event) => event.userId,
    REPLAY_LANES,
    async (event) => {
      try {
        await ingest({
          name: event.event,
          userId: event.userId,
          ...(event.userEmail === null ? {} : { email: event.userEmail }),
          eventProperties: event.properties,
          timestamp: event.occurredAt,
          source: 'replay',
          ...(options.idempotencyKeyOf === undefined ? {} : { idempotencyKey: options.idempotencyKeyOf(event) }),
        });
        replayed += 1;
      } catch (error) {
        errors.push({ eventId: event.id, error: (error as Error).message });
      }
      options.onEach?.();
    },
  );
  return { replayed, errors };
}
