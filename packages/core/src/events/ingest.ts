import { sql, type RawBuilder } from 'kysely';
import pg from 'pg';
import type { CatalogViolation } from '@waymark/journey';
import type { Db } from '../db/database';
import { externalIdUpsert, upsertContact, type ContactUpsertInput, type UpsertedContact } from '../contacts/upsert-contact';
import { setMemberships } from '../lists/set-memberships';
import type { IngestDeps } from './ingest-deps';
import { effectsColumns, effectsCtes, planEffects, type EffectPlan, type EventEffect } from './effects-statement';
import { prepareEvent, type EventInput, type PreparedEvent } from './prepare-event';
import { LIVE_STATUS_LIST } from '../journeys/live-statuses';
import { goalCandidatesColumn, goalCandidatesCte, recordBroadcastConversions, type GoalCandidate } from '../broadcasts/broadcast-conversions';

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
  /** the user's live states when the event was stored (the response's `exits`) */
  liveStates: { id: string; journeyId: string }[];
  effects: EventEffect[];
  exitedIds: string[];
  /** goal broadcasts' recipients this event may convert (broadcast-conversions.ts) */
  goalCandidates: GoalCandidate[];
}

/**
 * The ingest pipeline, inside the caller's request: store (with the exit check and the event's
 * journey effects) → route → contact upsert, then list membership. The store, the user's live
 * states, the effects (journey starts, signals to waiting runs, exits: kept in `event_effects`,
 * the exits applied) and (for an event keyed by userId) the contact upsert are ONE statement, so
 * an acknowledged event has every effect kept, and an event that triggers nothing for a user with
 * no live state still costs one round trip. Routing (the Temporal calls) happens after the commit,
 * off the request path: `deps.effects` carries the effects out in this process at once, and the
 * worker's relay whatever this process could not (docs/operations.md, "Temporal outage").
 */
export async function ingestEvent(deps: IngestDeps, input: IngestInput): Promise<IngestResult> {
  const event = prepareEvent(deps, input);
  const { userId } = event;
  const quarantined = event.catalogViolations !== undefined;
  // a quarantined event starts, signals and exits nothing: its properties are not what the journeys were written for
  const plan = planEffects(deps, [event]);

  // 1. store, with its journey effects (+ for an event keyed by userId, step 4)
  const contactInput: ContactUpsertInput = { userId: event.externalId, email: event.email, properties: event.contactProperties };
  const keyedByUserId = event.externalId !== undefined;
  let contactInStatement = keyedByUserId;
  const row = await storeEvent(deps.db, event, plan, keyedByUserId ? contactInput : undefined).catch(async (error: unknown) => {
    // PostgreSQL refused the statement, so nothing of it was written: the contact part may be what
    // it refused, and a contact that cannot be resolved is logged while the event still counts (step 4)
    if (!keyedByUserId || !refusedByServer(error)) throw error;
    deps.logger.warn({ err: error, userId }, 'event store with contact upsert failed; storing the event alone');
    contactInStatement = false;
    return storeEvent(deps.db, event, plan, undefined);
  });
  if (row.insertedId === null) {
    // a repeated Idempotency-Key: nothing new is stored. Its stored id is read after this statement
    // (rare, so the common request pays no lookup; a key a concurrent request committed after this
    // statement's snapshot is visible then too). Whatever of that event's effects is still kept (the
    // first request died after its commit, or Temporal was down) is carried out now, before the
    // answer, so a producer's retry finishes what its first attempt began.
    const eventId = await findEventIdByKey(deps.db, event.idempotencyKey);
    await deps.effects.finish(eventId);
    return { stored: false, eventId, exits: [] };
  }
  const eventId = row.insertedId;
  await deps.faults?.afterCommit?.([event]);
  // 2. route: the effects are committed; this process carries them out at once, off the request path
  deps.effects.dispatch(event, row.effects);
  await convertBroadcastRecipients(deps, row.goalCandidates, [event]);

  // 4. contact upsert, when the store statement did not do it (an email-only event, whose contact
  // is found by address). A failure is logged and the event still counts.
  const contact: UpsertedContact | undefined =
    contactInStatement && row.contactId !== null
      ? { id: row.contactId, email: row.contactEmail }
      : await upsertContact(deps.db, contactInput).catch((error: unknown) => {
          deps.logger.warn({ err: error, userId, eventId }, 'contact resolution failed; event processed without it');
          return undefined;
        });

  // 3. the exit check ran in the store statement
  const exited = new Set(row.exitedIds);
  const exits = quarantined ? [] : row.liveStates.map((state) => ({ journeyId: state.journeyId, stateId: state.id, exited: exited.has(state.id) }));
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

/**
 * Ingest step 1 in ONE round trip: the event insert, the user's live states, the event's journey
 * effects (effects-statement.ts: starts, signals, exits, each kept in `event_effects`, the exits
 * applied) and, given `contact` (keyed by userId), the contact upsert of step 4, written only when
 * the event is (a repeated Idempotency-Key touches no contact and has no effects). An event that
 * triggers nothing for a user with no live state costs this one statement.
 */
async function storeEvent(db: Db, event: PreparedEvent, plan: EffectPlan, contact: ContactUpsertInput | undefined): Promise<StoreRow> {
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
    ), contact as (${contactPart}),
    fresh as (select id, 1 as ord, ${event.userId}::text as user_id, ${event.name}::text as event, ${violations === null}::boolean as routable from inserted),
    live as (
      select s.id, s.user_id, s.journey_id, s.workflow_id, s.context ->> 'waitingFor' as waiting_for
      from journey_states s where s.user_id = ${event.userId} and s.status in ${LIVE_STATUS_LIST}
    ), ${effectsCtes(plan)}, ${goalCandidatesCte}
    select
      (select id from inserted) as inserted_id,
      (select id from contact) as contact_id,
      (select email from contact) as contact_email,
      coalesce((select json_agg(json_build_object('id', id, 'journeyId', journey_id)) from live), '[]'::json) as live_states,
      ${goalCandidatesColumn},
      ${effectsColumns}`.execute(db);
  return stored.rows[0]!;
}

/**
 * The goal broadcasts' conversions the stored events make, after their commit (only a goal
 * event of an exposed recipient gets here). A failure is logged and the events still count.
 */
export async function convertBroadcastRecipients(
  deps: Pick<IngestDeps, 'db' | 'logger'>,
  candidates: readonly GoalCandidate[],
  events: readonly PreparedEvent[],
): Promise<void> {
  if (candidates.length === 0) return;
  const byId = new Map(events.map((event) => [event.id, { name: event.name, properties: event.eventProperties }]));
  await recordBroadcastConversions(deps.db, candidates, byId).catch((error: unknown) => {
    deps.logger.warn({ err: error, count: candidates.length }, 'broadcast goal conversions not recorded');
  });
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
