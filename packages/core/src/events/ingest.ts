import { sql, type RawBuilder } from 'kysely';
import pg from 'pg';
import type { CatalogViolation } from '@waymark/journey';
import type { Db } from '../db/database';
import { externalIdUpsert, upsertContact, type ContactUpsertInput, type UpsertedContact } from '../contacts/upsert-contact';
import { setMemberships } from '../lists/set-memberships';
import { exitStates } from '../journeys/exit-states';
import type { IngestDeps } from './ingest-deps';
import { matchesExitRule } from './exit-rule';
import { prepareEvent, type EventInput, type PreparedEvent } from './prepare-event';
import { overridesJson, routeEvent, type LiveState } from './route-event';
import { LIVE_STATUS_LIST } from '../journeys/live-statuses';

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

interface StoreRow {
  insertedId: string | null;
  /** the contact when the statement also upserted it (an event keyed by userId), else null */
  contactId: string | null;
  contactEmail: string | null;
  liveStates: LiveState[];
  overrides: Record<string, boolean>;
}

/**
 * The ingest pipeline, inside the caller's request: store → route → exit check → contact upsert,
 * then list membership. The store, the user's live states, the overrides of the triggered journeys
 * and (for an event keyed by userId) the contact upsert are ONE round trip: an event that triggers
 * nothing for a user with no live state costs one statement, as a bare INSERT would. An email-only
 * event's upsert is a second statement, run alongside route and exit check (step 4).
 */
export async function ingestEvent(deps: IngestDeps, input: IngestInput): Promise<IngestResult> {
  const event = prepareEvent(deps, input);
  const { userId } = event;
  const quarantined = event.catalogViolations !== undefined;
  // a quarantined event starts nothing, so it reads no journey's override
  const candidateIds = quarantined ? [] : deps.journeys.triggeredBy(event.name).map((journey) => journey.id);

  // 1. store (+ read what routing and the exit check need; for an event keyed by userId, step 4 too)
  const contactInput: ContactUpsertInput = { userId: event.externalId, email: event.email, properties: event.contactProperties };
  const keyedByUserId = event.externalId !== undefined;
  let contactInStatement = keyedByUserId;
  const row = await storeEvent(deps.db, event, candidateIds, keyedByUserId ? contactInput : undefined).catch(async (error: unknown) => {
    // PostgreSQL refused the statement, so nothing of it was written: the contact part may be what
    // it refused, and a contact that cannot be resolved is logged while the event still counts (step 4)
    if (!keyedByUserId || !refusedByServer(error)) throw error;
    deps.logger.warn({ err: error, userId }, 'event store with contact upsert failed; storing the event alone');
    contactInStatement = false;
    return storeEvent(deps.db, event, candidateIds, undefined);
  });
  if (row.insertedId === null) {
    // a repeated Idempotency-Key: nothing new is stored and nothing is routed again. Its stored id
    // is read after this statement (rare, so the common request pays no lookup; a key a concurrent
    // request committed after this statement's snapshot is visible then too).
    return { stored: false, eventId: await findEventIdByKey(deps.db, event.idempotencyKey), exits: [] };
  }
  const eventId = row.insertedId;

  // 4. contact upsert, when the store statement did not do it (an email-only event, whose contact
  // is found by address): issued now and awaited last, since routing and the exit check never read
  // what it writes (a run's entry reads a contact's address only when the event carries none, and
  // then the upsert keeps the stored one), so a journey-starting request waits for the slower of
  // the Temporal start and the upsert instead of their sum. A failure is logged and the event still counts.
  const contactUpsert: Promise<UpsertedContact | undefined> =
    contactInStatement && row.contactId !== null
      ? Promise.resolve({ id: row.contactId, email: row.contactEmail })
      : upsertContact(deps.db, contactInput).catch((error: unknown) => {
          deps.logger.warn({ err: error, userId, eventId }, 'contact resolution failed; event processed without it');
          return undefined;
        });

  // 2. route: start every enabled journey triggered by this name; deliver to runs waiting for it
  // 3. exit check over the user's active and waiting states
  // (a quarantined event does neither: its properties are not what the journeys were written for)
  const exits = quarantined ? [] : await routeAndExit(deps, event, row);

  const contact: UpsertedContact | undefined = await contactUpsert;
  const result: IngestResult = quarantined
    ? { stored: true, eventId, exits, quarantined: true, catalogViolations: event.catalogViolations }
    : { stored: true, eventId, exits };
  if (input.lists !== undefined && Object.keys(input.lists).length > 0) {
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

async function routeAndExit(deps: IngestDeps, event: PreparedEvent, row: StoreRow): Promise<IngestExit[]> {
  await routeEvent(deps, event, row.liveStates, row.overrides);
  const matching = row.liveStates.filter((state) => matchesExitRule(deps, state, event));
  const exited = matching.length === 0 ? new Set<string>() : await exitStates(deps, matching, { reason: 'exit_rule', event: event.name, eventId: event.id });
  return row.liveStates.map((state) => ({ journeyId: state.journeyId, stateId: state.id, exited: exited.has(state.id) }));
}

/**
 * Ingest step 1 in ONE round trip: the event insert, the user's live states, the overrides of the
 * triggered journeys and, given `contact` (keyed by userId), the contact upsert of step 4, written
 * only when the event is (a repeated Idempotency-Key touches no contact). An event that triggers
 * nothing for a user with no live state costs this one statement.
 */
async function storeEvent(db: Db, event: PreparedEvent, candidateIds: readonly string[], contact: ContactUpsertInput | undefined): Promise<StoreRow> {
  const contactPart: RawBuilder<unknown> =
    contact?.userId === undefined
      ? sql`select null::uuid as id, null::text as email where false`
      : externalIdUpsert(
          sql`select ${contact.userId}::text, ${contact.email ?? null}::text, ${JSON.stringify(contact.properties ?? {})}::jsonb where exists (select 1 from inserted)`,
        );
  const violations = event.catalogViolations === undefined ? null : JSON.stringify(event.catalogViolations);
  const stored = await sql<StoreRow>`
    with inserted as (
      insert into events (id, user_id, user_email, event, properties, source, idempotency_key, occurred_at, catalog_violations)
      values (${event.id}, ${event.userId}, ${event.email ?? null}, ${event.name}, ${JSON.stringify(event.eventProperties)}::jsonb, ${event.source},
              ${event.idempotencyKey ?? null}, ${event.occurredAt}, ${violations}::jsonb)
      on conflict (idempotency_key) do nothing
      returning id
    ), contact as (${contactPart})
    select
      (select id from inserted) as inserted_id,
      (select id from contact) as contact_id,
      (select email from contact) as contact_email,
      coalesce((
        select json_agg(json_build_object('id', s.id, 'journeyId', s.journey_id, 'workflowId', s.workflow_id, 'waitingFor', s.context ->> 'waitingFor'))
        from journey_states s where s.user_id = ${event.userId} and s.status in ${LIVE_STATUS_LIST}
      ), '[]'::json) as live_states,
      ${overridesJson(candidateIds)} as overrides`.execute(db);
  return stored.rows[0]!;
}

/** An error PostgreSQL answered (not a lost connection, whose statement may have committed): the statement was rolled back whole. */
function refusedByServer(error: unknown): boolean {
  return error instanceof pg.DatabaseError;
}

async function findEventIdByKey(db: Db, key: string | undefined): Promise<string> {
  if (key === undefined) throw new Error('event insert returned no id');
  const row = await db.selectFrom('events').select('id').where('idempotencyKey', '=', key).executeTakeFirstOrThrow();
  return row.id;
}
