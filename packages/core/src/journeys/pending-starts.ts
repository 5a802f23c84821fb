import { sql } from 'kysely';
import type { Db } from '../db/database';
import type { JsonObject } from '../db/schema';
import { recordDeadLetter } from '../dlq/dead-letters';
import { isAppError } from '../errors/app-error';
import type { AppLogger } from '../logging/logger';
import { journeyRequest } from './journey-dead-letters';
import type { JourneyOrchestrator, JourneyRunRequest } from './orchestrator';

/**
 * Journey starts that outlive a workflow-engine outage (docs/operations.md, "Temporal outage").
 *
 * A start that failed because the engine was unreachable or timed out (the orchestrator port throws
 * an `unavailable` AppError) is kept as a row of `journey_pending_starts`, committed before the
 * event that triggered it is acknowledged. The worker's relay (pending-start-relay.ts) starts it
 * again, with the request as it was, so under the same workflow id: a start that did reach the
 * engine before its deadline is found, not duplicated (at most one run per enrollment). After
 * JOURNEY_START_RETRY_HOURS without success, or when the engine refuses the start for any other
 * reason, the start is parked in the DLQ (source `journey`, kind `journey-start`) as before.
 */

/** True for the orchestrator's "engine unreachable or timed out" failure, the one a pending start waits out. */
export function isEngineUnavailable(error: unknown): boolean {
  return isAppError(error) && error.code === 'unavailable';
}

/** Keeps a start for the relay; a second failure of the same start (same journey, user and event) keeps the first row. */
export async function recordPendingStart(db: Db, request: JourneyRunRequest, error: string): Promise<void> {
  await db
    .insertInto('journeyPendingStarts')
    .values({
      journeyId: request.journeyId,
      userId: request.userId,
      eventId: request.trigger.eventId,
      request: JSON.stringify(request),
      lastError: error,
    })
    .onConflict((oc) => oc.columns(['journeyId', 'userId', 'eventId']).doNothing())
    .execute();
}

/** The pending starts now: the /metrics gauge and the studio overview's figure. */
export async function pendingStartStats(db: Db): Promise<{ pending: number; oldestAt: Date | null }> {
  const row = await db
    .selectFrom('journeyPendingStarts')
    .select((eb) => [eb.fn.countAll<number>().as('pending'), eb.fn.min('createdAt').as('oldestAt')])
    .executeTakeFirstOrThrow();
  return { pending: Number(row.pending), oldestAt: row.oldestAt === null ? null : new Date(row.oldestAt) };
}

export interface PendingStartRelayDeps {
  db: Db;
  orchestrator: Pick<JourneyOrchestrator, 'startJourney'>;
  logger: Pick<AppLogger, 'info' | 'warn' | 'error'>;
  /** JOURNEY_START_RETRY_HOURS: how long a start is retried before it is parked in the DLQ */
  retryHours: number;
}

export interface RelayPassOptions {
  /** rows claimed per pass */
  limit?: number;
  /** starts in flight at once */
  concurrency?: number;
  /**
   * How long a claimed row is hidden from other relays. Longer than a pass can take (each start
   * gives up after its deadline), so two relays never work on one row at the same time; a relay
   * that dies mid-pass leaves its rows to the others once the lease runs out.
   */
  leaseMs?: number;
}

export interface RelayPass {
  claimed: number;
  started: number;
  /** moved to the DLQ: out of retry time, or refused by the engine */
  parked: number;
  /** the engine was unreachable: the pass stopped at the first such failure */
  unavailable: boolean;
}

interface ClaimedStart {
  id: string;
  request: unknown;
  attempts: number;
  lastError: string;
  createdAt: Date;
}

/**
 * One pass of the relay: claims the due rows (FOR UPDATE SKIP LOCKED, then a lease, so several
 * workers share the table without working on one row twice), parks the expired ones, and starts
 * the others. The first "unavailable" failure ends the pass: the engine is still down, and the
 * rest of the batch would only wait out the same deadline one by one.
 */
export async function relayPendingStarts(deps: PendingStartRelayDeps, options: RelayPassOptions = {}): Promise<RelayPass> {
  const limit = options.limit ?? 100;
  const leaseMs = options.leaseMs ?? 120_000;
  const claimed = await sql<ClaimedStart>`
    update journey_pending_starts set next_attempt_at = now() + ${`${leaseMs} milliseconds`}::interval
    where id in (
      select id from journey_pending_starts where next_attempt_at <= now()
      order by next_attempt_at, created_at limit ${limit} for update skip locked
    )
    returning id, request, attempts, last_error as "lastError", created_at as "createdAt"`.execute(deps.db);
  const pass: RelayPass = { claimed: claimed.rows.length, started: 0, parked: 0, unavailable: false };
  if (claimed.rows.length === 0) return pass;

  const expiresBefore = Date.now() - deps.retryHours * 3_600_000;
  const live: ClaimedStart[] = [];
  for (const row of claimed.rows) {
    if (new Date(row.createdAt).getTime() > expiresBefore) {
      live.push(row);
      continue;
    }
    await park(deps.db, row, `not started within JOURNEY_START_RETRY_HOURS (${deps.retryHours} h, ${row.attempts} attempts): ${row.lastError}`);
    pass.parked += 1;
  }

  let next = 0;
  const lanes = Array.from({ length: Math.min(options.concurrency ?? 8, live.length) }, async () => {
    while (next < live.length && !pass.unavailable) {
      const row = live[next++]!;
      const outcome = await relayOne(deps, row);
      if (outcome === 'started') pass.started += 1;
      else if (outcome === 'parked') pass.parked += 1;
      else pass.unavailable = true;
    }
  });
  await Promise.all(lanes);
  // rows this pass did not reach are due again at once (the relay's own backoff spaces the passes)
  const untried = live.slice(next).map((row) => row.id);
  if (untried.length > 0)
    await deps.db
      .updateTable('journeyPendingStarts')
      .set({ nextAttemptAt: sql`now()` })
      .where('id', 'in', untried)
      .execute();
  return pass;
}

async function relayOne(deps: PendingStartRelayDeps, row: ClaimedStart): Promise<'started' | 'parked' | 'unavailable'> {
  const parsed = journeyRequest.safeParse(row.request);
  if (!parsed.success) {
    await park(deps.db, row, `stored start request is malformed: ${parsed.error.message}`);
    return 'parked';
  }
  try {
    await deps.orchestrator.startJourney(parsed.data);
  } catch (error) {
    const message = (error as Error).message;
    if (!isEngineUnavailable(error)) {
      deps.logger.error({ err: error, journeyId: parsed.data.journeyId, userId: parsed.data.userId }, 'pending journey start refused; parked in the DLQ');
      await park(deps.db, row, message);
      return 'parked';
    }
    await deps.db
      .updateTable('journeyPendingStarts')
      .set((eb) => ({ attempts: eb('attempts', '+', 1), lastError: message, nextAttemptAt: sql`now()` }))
      .where('id', '=', row.id)
      .execute();
    return 'unavailable';
  }
  await deps.db.deleteFrom('journeyPendingStarts').where('id', '=', row.id).execute();
  return 'started';
}

/** DLQ entry and row removal in one transaction: a start is either pending or parked, never both or neither. */
async function park(db: Db, row: ClaimedStart, error: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const request = journeyRequest.safeParse(row.request);
    await recordDeadLetter(trx, {
      source: 'journey',
      sourceId: request.success ? request.data.trigger.eventId : null,
      payload: { kind: 'journey-start', request: row.request as JsonObject },
      error,
      retryCount: row.attempts,
    });
    await trx.deleteFrom('journeyPendingStarts').where('id', '=', row.id).execute();
  });
}
