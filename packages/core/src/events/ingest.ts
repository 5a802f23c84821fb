import { sql, type RawBuilder } from 'kysely';
import pg from 'pg';
import type { Db } from '../db/database';
import { CONTACT_KEY_REQUIRED, externalIdUpsert, upsertContact, type ContactUpsertInput, type UpsertedContact } from '../contacts/upsert-contact';
import { newRowId } from '../db/ids';
import { findUnstorable } from '../db/storable-value';
import { checkContactProperties } from '../contacts/time-zone';
import { badRequest } from '../errors/app-error';
import { setMemberships } from '../lists/set-memberships';
import { exitStates } from '../journeys/exit-states';
import type { IngestDeps } from './ingest-deps';
import { matchesExitRule } from './exit-rule';
import { overridesJson, routeEvent, type LiveState } from './route-event';
import { LIVE_STATUS_LIST } from '../journeys/live-statuses';

export type IngestSource = 'api' | 'webhook' | 'tracking' | 'lifecycle' | 'replay' | 'enroll' | 'import';

export interface IngestInput {
  name: string;
  userId?: string;
  email?: string;
  eventProperties?: Record<string, unknown>;
  contactProperties?: Record<string, unknown>;
  lists?: Record<string, boolean>;
  idempotencyKey?: string;
  timestamp?: Date;
  source: IngestSource;
  /**
   * Set by a caller that has already refused unstorable values in everything it passes (the api's
   * preValidation hook walks every request body once): the pipeline skips walking it again.
   */
  storableChecked?: boolean;
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
}

interface StoreRow {
  insertedId: string | null;
  /** the contact when the statement also upserted it (an event keyed by userId), else null */
  contactId: string | null;
  contactEmail: string | null;
  liveStates: LiveState[];
  overrides: Record<string, boolean>;
}

/** Earliest event time accepted: nothing a product reports can predate the Unix epoch. */
export const EVENT_TIME_MIN = new Date(0);
/** How far ahead of this server's clock an event time may be (clock skew between producers). */
export const EVENT_TIME_MAX_AHEAD_MS = 24 * 60 * 60 * 1000;

/** 400 for an event time that cannot be real: before 1970-01-01 or more than 24 h ahead. */
export function checkEventTime(time: Date, now = Date.now()): void {
  if (Number.isNaN(time.getTime()) || time.getTime() < EVENT_TIME_MIN.getTime() || time.getTime() > now + EVENT_TIME_MAX_AHEAD_MS) {
    throw badRequest('Invalid request: timestamp must be between 1970-01-01T00:00:00Z and 24 hours after the server time');
  }
}

/** Events keyed by email alone use the lowercased address as their user id. */
export function ingestUserId(input: Pick<IngestInput, 'userId' | 'email'>): string {
  if (input.userId !== undefined && input.userId !== '') return input.userId;
  if (input.email !== undefined && input.email !== '') return input.email.trim().toLowerCase();
  throw badRequest(CONTACT_KEY_REQUIRED);
}

/**
 * The ingest pipeline, inside the caller's request: store → route → exit check → contact upsert,
 * then list membership. The store, the user's live states, the overrides of the triggered journeys
 * and (for an event keyed by userId) the contact upsert are ONE round trip: an event that triggers
 * nothing for a user with no live state costs one statement, as a bare INSERT would. An email-only
 * event's upsert is a second statement, run alongside route and exit check (step 4).
 */
export async function ingestEvent(deps: IngestDeps, input: IngestInput): Promise<IngestResult> {
  const name = input.name.trim();
  if (name === '') throw badRequest('name must not be empty');
  // every source (API, webhooks, replay, enrollment) is checked before the first write, so a
  // value PostgreSQL would refuse can never store the event but lose the contact
  const unstorable = input.storableChecked === true ? undefined : findUnstorable(input, 'event');
  if (unstorable !== undefined) throw badRequest(`Invalid request: ${unstorable}`);
  checkContactProperties(input.contactProperties, 'contactProperties');
  if (input.timestamp !== undefined) checkEventTime(input.timestamp);
  const userId = ingestUserId(input);
  const email = input.email?.trim() || undefined;
  const occurredAt = input.timestamp ?? new Date();
  const eventProperties = input.eventProperties ?? {};
  const check = deps.journeys.events.check(name, eventProperties);
  if (!check.ok) throw badRequest(`eventProperties.${check.path}: ${check.message} (event '${name}' is in the event catalog)`);
  const candidateIds = deps.journeys.triggeredBy(name).map((journey) => journey.id);

  // 1. store (+ read what routing and the exit check need; for an event keyed by userId, step 4 too)
  const contactInput: ContactUpsertInput = { userId: input.userId, email, properties: input.contactProperties };
  const storeInput = { userId, email, name, eventProperties, source: input.source, idempotencyKey: input.idempotencyKey, occurredAt, candidateIds };
  const keyedByUserId = input.userId !== undefined && input.userId !== '';
  let contactInStatement = keyedByUserId;
  const row = await storeEvent(deps.db, storeInput, keyedByUserId ? contactInput : undefined).catch(async (error: unknown) => {
    // PostgreSQL refused the statement, so nothing of it was written: the contact part may be what
    // it refused, and a contact that cannot be resolved is logged while the event still counts (step 4)
    if (!keyedByUserId || !refusedByServer(error)) throw error;
    deps.logger.warn({ err: error, userId }, 'event store with contact upsert failed; storing the event alone');
    contactInStatement = false;
    return storeEvent(deps.db, storeInput, undefined);
  });
  if (row.insertedId === null) {
    // a repeated Idempotency-Key: nothing new is stored and nothing is routed again. Its stored id
    // is read after this statement (rare, so the common request pays no lookup; a key a concurrent
    // request committed after this statement's snapshot is visible then too).
    return { stored: false, eventId: await findEventIdByKey(deps.db, input.idempotencyKey), exits: [] };
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
  const event = { id: eventId, name, userId, email, eventProperties, occurredAt };
  await routeEvent(deps, event, row.liveStates, row.overrides);

  // 3. exit check over the user's active and waiting states
  const matching = row.liveStates.filter((state) => matchesExitRule(deps, state, event));
  const exited = matching.length === 0 ? new Set<string>() : await exitStates(deps, matching, { reason: 'exit_rule', event: name, eventId });
  const exits = row.liveStates.map((state) => ({ journeyId: state.journeyId, stateId: state.id, exited: exited.has(state.id) }));

  const contact: UpsertedContact | undefined = await contactUpsert;
  const result: IngestResult = { stored: true, eventId, exits };
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

interface StoreInput {
  userId: string;
  email: string | undefined;
  name: string;
  eventProperties: Record<string, unknown>;
  source: IngestSource;
  idempotencyKey: string | undefined;
  occurredAt: Date;
  candidateIds: readonly string[];
}

/**
 * Ingest step 1 in ONE round trip: the event insert, the user's live states, the overrides of the
 * triggered journeys and, given `contact` (keyed by userId), the contact upsert of step 4, written
 * only when the event is (a repeated Idempotency-Key touches no contact). An event that triggers
 * nothing for a user with no live state costs this one statement.
 */
async function storeEvent(db: Db, input: StoreInput, contact: ContactUpsertInput | undefined): Promise<StoreRow> {
  const contactPart: RawBuilder<unknown> =
    contact?.userId === undefined
      ? sql`select null::uuid as id, null::text as email where false`
      : externalIdUpsert(
          sql`select ${contact.userId}::text, ${contact.email ?? null}::text, ${JSON.stringify(contact.properties ?? {})}::jsonb where exists (select 1 from inserted)`,
        );
  const stored = await sql<StoreRow>`
    with inserted as (
      insert into events (id, user_id, user_email, event, properties, source, idempotency_key, occurred_at)
      values (${newRowId()}, ${input.userId}, ${input.email ?? null}, ${input.name}, ${JSON.stringify(input.eventProperties)}::jsonb, ${input.source},
              ${input.idempotencyKey ?? null}, ${input.occurredAt})
      on conflict (idempotency_key) do nothing
      returning id
    ), contact as (${contactPart})
    select
      (select id from inserted) as inserted_id,
      (select id from contact) as contact_id,
      (select email from contact) as contact_email,
      coalesce((
        select json_agg(json_build_object('id', s.id, 'journeyId', s.journey_id, 'workflowId', s.workflow_id, 'waitingFor', s.context ->> 'waitingFor'))
        from journey_states s where s.user_id = ${input.userId} and s.status in ${LIVE_STATUS_LIST}
      ), '[]'::json) as live_states,
      ${overridesJson(input.candidateIds)} as overrides`.execute(db);
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
