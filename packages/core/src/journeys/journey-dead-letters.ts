import { sql } from 'kysely';
import type { Db } from '../db/database';
import type { JsonObject } from '../db/schema';
import { z } from 'zod';
import { recordDeadLetter } from '../dlq/dead-letters';
import { parseDeadLetterPayload, type DeadLetterRetryHandlers } from '../dlq/retry-handlers';
import type { JourneyOrchestrator, JourneyRunRequest } from './orchestrator';

/**
 * A journey run that failed (its body threw, or an activity gave up after its retries) is parked
 * once per state, with the request that started it: the activity that records it may be retried
 * after its commit, so an existing entry for the state is kept instead of adding a second.
 */
export async function recordJourneyRunDeadLetter(db: Db, input: { stateId: string; request: JourneyRunRequest; error: string }): Promise<void> {
  const existing = await db.selectFrom('dlqEntries').select('id').where('source', '=', 'journey').where('sourceId', '=', input.stateId).executeTakeFirst();
  if (existing !== undefined) return;
  await recordDeadLetter(db, {
    source: 'journey',
    sourceId: input.stateId,
    payload: { kind: 'journey-run', stateId: input.stateId, request: input.request as unknown as JsonObject },
    error: input.error,
  });
}

/**
 * Retrying a failed run starts the journey again for the same user under a new workflow id (the
 * failed state stays as the record of what happened). An `entryLimit: 'once'` journey re-admits
 * the user only when every earlier run of theirs in it failed, so a retry never lets someone in twice.
 */
export async function retryJourneyRun(
  deps: { db: Db; orchestrator: Pick<JourneyOrchestrator, 'startJourney'> },
  input: { dlqEntryId: string; request: JourneyRunRequest },
): Promise<void> {
  const { journeyId, userId } = input.request;
  await sql`
    delete from journey_entries e
    where e.journey_id = ${journeyId} and e.user_id = ${userId}
      and not exists (select 1 from journey_states s where s.journey_id = ${journeyId} and s.user_id = ${userId} and s.status <> 'failed')
  `.execute(deps.db);
  await deps.orchestrator.startJourney({
    ...input.request,
    trigger: { ...input.request.trigger, eventId: `${input.request.trigger.eventId}.retry-${input.dlqEntryId}` },
  });
}

/** A stored JourneyRunRequest (DLQ payloads, pending starts), checked before it is started again. */
export const journeyRequest = z.object({
  journeyId: z.string().min(1),
  userId: z.string().min(1),
  userEmail: z.string(),
  properties: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
  trigger: z.object({ event: z.string(), eventId: z.string(), occurredAt: z.string() }),
});
/** journey-start: Temporal refused to start the run; journey-run: the run started and failed. */
const journeyPayload = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('journey-start'), request: journeyRequest }),
  z.object({ kind: z.literal('journey-run'), request: journeyRequest }),
]);

/**
 * A journey start that Temporal refused is started again (same workflow id, so a run that did
 * start meanwhile is not duplicated); a run that failed is run again for the user under a new
 * workflow id (retryJourneyRun).
 */
export function registerJourneyRetryHandler(
  handlers: DeadLetterRetryHandlers,
  deps: { db: Db; orchestrator: Pick<JourneyOrchestrator, 'startJourney'> },
): void {
  handlers.register('journey', async (entry) => {
    const payload = parseDeadLetterPayload(journeyPayload, entry.payload, 'journey start or run');
    switch (payload.kind) {
      case 'journey-start':
        await deps.orchestrator.startJourney(payload.request);
        return;
      case 'journey-run':
        await retryJourneyRun(deps, { dlqEntryId: entry.id, request: payload.request });
        return;
    }
  });
}
