import type { CatalogViolation } from '@waymark/journey';
import { setMemberships } from '../lists/set-memberships';
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
 * also reads every live state of the user for the answer's `exits`; then list membership, the one
 * per-contact write a single event carries.
 */
export async function ingestEvent(deps: IngestDeps, input: IngestInput): Promise<IngestResult> {
  const [outcome] = await ingestBatch(deps, [input], { liveStates: 'all' });
  const { event, stored, eventId, exitedStateIds, liveStates, contact } = outcome!;
  const exited = new Set(exitedStateIds);
  const exits = liveStates.map((state) => ({ journeyId: state.journeyId, stateId: state.id, exited: exited.has(state.id) }));
  const result: IngestResult = !stored
    ? { stored: false, eventId, exits: [] }
    : event.catalogViolations === undefined
      ? { stored: true, eventId, exits }
      : { stored: true, eventId, exits, quarantined: true, catalogViolations: event.catalogViolations };
  // a repeated key writes its lists only to a contact it created (its first request died before
  // writing either); a contact that exists is left as it is, so a later unsubscribe from a list stays
  if (input.lists !== undefined && Object.keys(input.lists).length > 0 && (stored || contact !== undefined)) {
    if (contact === undefined) {
      result.listsError = 'Contact could not be resolved; list membership not written';
    } else {
      try {
        await setMemberships(deps.db, contact.id, input.lists);
      } catch (error) {
        // the driver's text stays in the log: a response never carries database internals
        deps.logger.warn({ err: error, contactId: contact.id }, 'list membership write failed');
        result.listsError = 'List membership not written';
      }
    }
  }
  return result;
}
