import type { CatalogViolation } from '@waymark/journey';
import type { IngestDeps } from './ingest-deps';
import { ingestBatch } from './ingest-batch';
import type { EventInput } from './prepare-event';

export interface IngestInput extends EventInput {
  lists?: Record<string, boolean>;
}

export interface IngestExit {
  journeyId: string;
  stateId: string;
  exited: boolean;
}

export interface IngestResult {
  stored: boolean;
  eventId: string;
  exits: IngestExit[];
  listsError?: string;
  /** present (true) only when the event catalog quarantined the event: stored, routed nowhere */
  quarantined?: true;
  catalogViolations?: CatalogViolation[];
}

/**
 * One event (POST /v1/events, webhook sources, enrollments, replays) is a batch of one through the
 * ingest pipeline (`ingestBatch` in ingest-batch.ts: store, exit check, effects, contact), which
 * also reads every live state of the user for the answer's `exits`, and writes the event's list
 * membership in its transaction.
 */
export async function ingestEvent(deps: IngestDeps, input: IngestInput): Promise<IngestResult> {
  const { lists, ...event } = input;
  const [outcome] = await ingestBatch(deps, [event], { liveStates: 'all', ...(lists === undefined ? {} : { lists }) });
  const { stored, eventId, exitedStateIds, liveStates, listsError } = outcome!;
  const exited = new Set(exitedStateIds);
  const exits = liveStates.map((state) => ({ journeyId: state.journeyId, stateId: state.id, exited: exited.has(state.id) }));
  const result: IngestResult = !stored
    ? { stored: false, eventId, exits: [] }
    : outcome!.event.catalogViolations === undefined
      ? { stored: true, eventId, exits }
      : { stored: true, eventId, exits, quarantined: true, catalogViolations: outcome!.event.catalogViolations };
  if (listsError !== undefined) result.listsError = listsError;
  return result;
}
