import { sql, type RawBuilder } from 'kysely';
import { effectiveEnabled } from '../journeys/effective-enabled';
import { primitiveProperties } from '../journeys/orchestrator';
import type { JsonObject } from '../db/schema';
import { recordDeadLetter } from '../dlq/dead-letters';
import { isEngineUnavailable, recordPendingStart } from '../journeys/pending-starts';
import type { JourneyRunRequest } from '../journeys/orchestrator';
import type { IngestDeps } from './ingest-deps';

/** A stored event as routing and the exit check see it. */
export interface RoutableEvent {
  id: string;
  name: string;
  userId: string;
  email: string | undefined;
  eventProperties: Record<string, unknown>;
  occurredAt: Date;
}

/** A user's active or waiting state, as the store statement reads it. */
export interface LiveState {
  id: string;
  journeyId: string;
  workflowId: string;
  waitingFor: string | null;
}

/** Part of the store statement: the admin overrides of the given journeys, as a JSON object. */
export function overridesJson(journeyIds: readonly string[]): RawBuilder<Record<string, boolean>> {
  return journeyIds.length === 0
    ? sql`'{}'::json`
    : sql`coalesce((select json_object_agg(journey_id, enabled) from journey_overrides where journey_id = any(${journeyIds}::text[])), '{}'::json)`;
}

/**
 * Ingest step 2 (route) for one stored event: start every enabled journey it triggers (a start the
 * engine could not take is kept pending, see startRun) and deliver it to the user's runs waiting for it. Shared by the
 * single-event and the batched pipeline so both route identically.
 */
export async function routeEvent(deps: IngestDeps, event: RoutableEvent, liveStates: readonly LiveState[], overrides: Record<string, boolean>): Promise<void> {
  const properties = primitiveProperties(event.eventProperties);
  const occurredAt = event.occurredAt.toISOString();
  const starts = deps.journeys
    .triggeredBy(event.name)
    .filter((journey) => effectiveEnabled(deps.journeys, journey.id, overrides[journey.id]))
    .map((journey) =>
      startRun(deps, {
        journeyId: journey.id,
        userId: event.userId,
        userEmail: event.email ?? '',
        properties,
        trigger: { event: event.name, eventId: event.id, occurredAt },
      }),
    );
  const signal = { eventId: event.id, name: event.name, occurredAt, properties };
  const signals = liveStates
    .filter((state) => state.waitingFor === event.name)
    .map((state) =>
      deps.orchestrator.signalEvent(state.workflowId, signal).catch((error: unknown) => {
        deps.logger.warn({ err: error, workflowId: state.workflowId }, 'could not deliver event to a waiting journey run');
      }),
    );
  await Promise.all([...starts, ...signals]);
}

/**
 * Starts one run. When the engine is unreachable or timed out, the start is kept for the worker's
 * relay (journeys/pending-starts.ts), committed before the event is acknowledged: if even that write
 * fails, the error fails the request, so no acknowledged event loses its start. Any other failure
 * is parked in the DLQ (source `journey`) instead of failing the event.
 */
async function startRun(deps: IngestDeps, request: JourneyRunRequest): Promise<void> {
  try {
    await deps.orchestrator.startJourney(request);
  } catch (error) {
    if (isEngineUnavailable(error)) {
      deps.logger.warn({ err: error, journeyId: request.journeyId, userId: request.userId }, 'journey start pending: the workflow engine is unreachable');
      await recordPendingStart(deps.db, request, (error as Error).message);
      return;
    }
    // the event is stored; park the start so an operator can retry it from the DLQ
    deps.logger.error({ err: error, journeyId: request.journeyId, userId: request.userId }, 'could not start journey run');
    await recordDeadLetter(deps.db, {
      source: 'journey',
      sourceId: request.trigger.eventId,
      payload: { kind: 'journey-start', request: request as unknown as JsonObject },
      error: (error as Error).message,
    }).catch((dlqError: unknown) => deps.logger.error({ err: dlqError }, 'could not record dead letter for journey start'));
  }
}
