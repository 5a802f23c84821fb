import { eachLimited } from '../concurrency/each-limited';

export interface EnrollUser {
  userId: string;
  userEmail: string;
  properties?: Record<string, unknown> | undefined;
}

/** The trigger event an enrollment sends through the ingest pipeline (core/events/ingest.ts). */
export interface EnrollEvent {
  name: string;
  userId: string;
  email: string;
  eventProperties: Record<string, unknown>;
  source: 'enroll';
}

/** What a batch enrollment hands to its durable background run (one per batch). */
export interface EnrollmentBatch {
  batchId: string;
  journeyId: string;
  /** the journey's trigger event, resolved by the api when the batch was accepted */
  event: string;
  /** how many users the batch accepted: positions 0 to total - 1 of its rows (enroll-batch-users.ts) */
  total: number;
}

/** A chunk of a batch with its users, as dispatched (and as a run started before 0300 carried its whole batch). */
export interface EnrollmentChunk extends Omit<EnrollmentBatch, 'total'> {
  users: EnrollUser[];
}

/** Parallel trigger events per chunk: enough to overlap the Temporal round trips, few enough for a 10-connection pool. */
const DISPATCH_CONCURRENCY = 16;

/**
 * Dispatches the trigger event of each user of a chunk through the normal pipeline (routing and
 * the durable entry guards apply). The idempotency key makes a retried chunk (worker killed
 * mid-chunk) store and route each user's event once. `beat` is called after each user.
 */
export async function dispatchEnrollments(
  ingest: (event: EnrollEvent & { idempotencyKey: string }) => Promise<unknown>,
  batch: EnrollmentChunk,
  beat: () => void = () => undefined,
): Promise<void> {
  await eachLimited(batch.users, DISPATCH_CONCURRENCY, async (user) => {
    await ingest({
      name: batch.event,
      userId: user.userId,
      email: user.userEmail,
      eventProperties: user.properties ?? {},
      idempotencyKey: `enroll-batch:${batch.batchId}:${user.userId}`,
      source: 'enroll',
    });
    beat();
  });
}
