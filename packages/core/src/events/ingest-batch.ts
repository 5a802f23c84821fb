import { sql, type RawBuilder } from 'kysely';
import pg from 'pg';
import { ensureContactByEmail, externalIdUpsert, upsertContact, upsertContactsByExternalId, type UpsertedContact } from '../contacts/upsert-contact';
import type { IngestDeps } from './ingest-deps';
import { prepareEvent, type EventInput, type PreparedEvent } from './prepare-event';
import { effectsColumns, effectsCtes, planEffects, type EffectPlan, type EventEffect } from './effects-statement';
import type { Db } from '../db/database';
import { NAMED_STATEMENT } from '../db/named-statements';
import { LIVE_STATUS_LIST } from '../journeys/live-statuses';
import { goalCandidatesColumn, goalCandidatesCte, recordBroadcastConversions, type GoalCandidate } from '../broadcasts/broadcast-conversions';
import { lockExitsOf } from './exit-lock';
import { setMemberships } from '../lists/set-memberships';

/** One event of a batch: an ingest input without list membership (a per-contact write). */
export type BatchIngestInput = EventInput;

export interface BatchIngestResult {
  /** false when its idempotency key was already stored (nothing routed, nothing exited) */
  stored: boolean;
  eventId: string;
  /** journey states this event moved to `exited` */
  exitedStateIds: string[];
}

/** A live journey state of an event's user when the store statement ran. */
export interface LiveState {
  id: string;
  journeyId: string;
}

/** What the pipeline did with one event: the single-event and the batch answers are both read from it. */
export interface IngestOutcome {
  event: PreparedEvent;
  /** false when its idempotency key was already stored (nothing routed, nothing exited, no contact touched) */
  stored: boolean;
  eventId: string;
  /** journey states this event moved to `exited` */
  exitedStateIds: string[];
  /** every live state of the event's user (with `liveStates: 'all'` and a routable event stored), else [] */
  liveStates: LiveState[];
  /** why the `lists` option's membership was not written with the stored event */
  listsError?: string;
}

export interface IngestOptions {
  /**
   * `all`: the statement reads every live state of the events' users and answers them (the single
   * event's `exits`); `relevant`: only the states one of the events can exit or signal, all a batch needs.
   */
  liveStates: 'all' | 'relevant';
  /**
   * List membership of a batch of one (true = subscribed), written in the event's own transaction
   * with its contact, so a stored event has its lists whatever happens after the commit, and a
   * retry of its key writes none (a later unsubscribe from a list stays). One that cannot be
   * written rolls back alone and is answered as `listsError`; the event still counts.
   */
  lists?: Record<string, boolean>;
}

/** What the store step wrote for the `lists` option: the contact that holds them, or why it wrote none. */
interface ListsWrite {
  contact?: UpsertedContact;
  error?: string;
}

interface StoreRow {
  inserted: string[];
  effects: EventEffect[];
  /** the states exited, each with the event that exited it */
  exits: { id: string; eventId: string }[];
  /** with `liveStates: 'all'` only */
  liveStates: (LiveState & { userId: string })[] | null;
  /** the contacts this statement upserted */
  contacts: UpsertedContact[];
  /** goal broadcasts' recipients this batch's events may convert (broadcast-conversions.ts) */
  goalCandidates: GoalCandidate[];
}

/** A contact keyed by external id, merged over the batch's events of it in their order. */
interface BatchContact {
  externalId: string;
  email: string | null;
  properties: Record<string, unknown>;
}

/**
 * Tracking events in bursts (email.opened / email.link_clicked) take `ingestEvents`; the data plane
 * takes `ingestEvent` (ingest.ts), which is this pipeline run on a batch of one.
 */
export async function ingestEvents(deps: IngestDeps, inputs: readonly BatchIngestInput[]): Promise<BatchIngestResult[]> {
  const outcomes = await ingestBatch(deps, inputs, { liveStates: 'relevant' });
  return outcomes.map(({ stored, eventId, exitedStateIds }) => ({ stored, eventId, exitedStateIds }));
}

/**
 * THE ingest pipeline (every event, single or batched, goes through here): prepare → store with
 * the exit check, the journey effects and the contact upsert → route → the rest of the contacts.
 * - Prepare: every event passes `prepareEvent` (name, time, catalog); an invalid input rejects the
 *   whole batch before anything is written. A quarantined event (catalog violations) is stored and
 *   upserts its contact, but starts, signals and exits nothing.
 * - Store: ONE statement inserts every event (a repeated Idempotency-Key inserts nothing), reads
 *   the users' live states, applies the exits and keeps every event's journey effects in
 *   `event_effects` (effects-statement.ts), and upserts the contacts keyed by external id of the
 *   events it stored, so an acknowledged event has every effect kept and an event that triggers
 *   nothing for a user with no live state costs one round trip. A state matched by several events
 *   of the batch exits once, on the first of them. A batch with an event that passes an exit rule
 *   or meets a journey's goal runs it after its users' exit locks, so a run entering meanwhile
 *   cannot miss it (exit-lock.ts).
 * - Route: after the commit, off the caller's path: `deps.effects` carries the effects out in this
 *   process at once, and the worker's relay whatever this process could not (docs/operations.md,
 *   "Temporal outage").
 * - Contacts the statement did not write (keyed by address; or PostgreSQL refused the statement
 *   with them, which is then run without them) are upserted after it. A contact that cannot be
 *   resolved is logged while its events still count.
 */
export async function ingestBatch(deps: IngestDeps, inputs: readonly EventInput[], options: IngestOptions): Promise<IngestOutcome[]> {
  if (inputs.length === 0) return [];
  const events = inputs.map((input) => prepareEvent(deps, input));
  const plan = planEffects(deps, events);
  const contacts = batchContacts(events);

  if (options.lists !== undefined && inputs.length !== 1) throw new Error('list membership is written for a batch of one');
  let inStatement = contacts.length > 0;
  const { row, lists } = await storeEvents(deps, events, plan, options, contacts).catch(async (error: unknown) => {
    // PostgreSQL refused the statement, so nothing of it was written: the contact part may be what
    // it refused, and a contact that cannot be resolved is logged while the events still count
    if (!inStatement || !refusedByServer(error)) throw error;
    deps.logger.warn(
      { err: error, userIds: contacts.map((contact) => contact.externalId) },
      'event store with contact upsert failed; storing the events alone',
    );
    inStatement = false;
    return storeEvents(deps, events, plan, options, []);
  });
  const inserted = new Set(row.inserted);

  // a repeated key (stored earlier, by a concurrent request, or earlier in this batch): its stored
  // id, read after the statement has committed, so every one of those is visible. Rare, so the
  // common batch pays no lookup. Whatever of those events' effects is still kept (the first request
  // died after its commit, or Temporal was down) is carried out now, before the answer, and what
  // the first request did after its commit is done again (its contact, its broadcast conversions):
  // each is a write of the same data, so a producer's retry finishes what its first attempt began.
  const repeats = events.filter((event) => !inserted.has(event.id));
  const repeated = repeats.length === 0 ? undefined : await storedRepeats(deps.db, repeats);
  const existing = repeated?.ids ?? new Map<string, string>();
  await Promise.all([...new Set(existing.values())].map((eventId) => deps.effects.finish(eventId)));
  const fresh = events.filter((event) => inserted.has(event.id));
  if (fresh.length > 0) await deps.faults?.afterCommit?.(fresh);

  // route: the effects are committed; this process carries them out at once
  const effectsByEvent = groupBy(row.effects, (effect) => effect.eventId);
  for (const event of fresh) deps.effects.dispatch(event, effectsByEvent.get(event.id) ?? []);
  await convertBroadcastRecipients(deps, row.goalCandidates, fresh);
  if (repeated !== undefined) await convertBroadcastRecipients(deps, repeated.goalCandidates, repeatsByStoredId(repeats, existing));

  // the contacts the store step did not write; a failure is logged and the events still count
  const written = inStatement ? writtenInStatement(events, inserted) : new Set<string>();
  const rest = lists?.contact !== undefined ? [] : fresh.filter((event) => event.externalId === undefined || !written.has(event.externalId));
  await upsertContacts(deps, rest).catch((error: unknown) => {
    deps.logger.warn(
      { err: error, count: rest.length, userIds: [...new Set(rest.map((event) => event.userId))] },
      'contact resolution failed; events processed without it',
    );
    return undefined;
  });
  // a repeated email-only event's contact, written after its first request's commit, which may have
  // died first: created when missing; one that exists is left as it is, as a repeated key leaves it
  await ensureRepeatedContacts(deps, repeats);

  // the exit check ran in the store statement: each live state exited on the first event of the batch that matches a rule
  const exited = groupBy(row.exits, (exit) => exit.eventId);
  const liveByUser = groupBy(row.liveStates ?? [], (state) => state.userId);
  return events.map((event): IngestOutcome => {
    if (!inserted.has(event.id))
      return {
        event,
        stored: false,
        eventId: storedIdOf(existing, event.idempotencyKey),
        exitedStateIds: [],
        liveStates: [],
      };
    const routable = event.catalogViolations === undefined;
    return {
      event,
      stored: true,
      eventId: event.id,
      exitedStateIds: (exited.get(event.id) ?? []).map((exit) => exit.id),
      liveStates: routable ? (liveByUser.get(event.userId) ?? []).map(({ id, journeyId }) => ({ id, journeyId })) : [],
      ...(lists?.error === undefined ? {} : { listsError: lists.error }),
    };
  });
}

/**
 * The store step in ONE round trip: the events insert, the users' live states, every event's
 * journey effects (effects-statement.ts: starts, signals, exits, each kept in `event_effects`, the
 * exits applied) and the upsert of `contacts` (sorted by external id, so concurrent statements lock
 * rows in the same order), each written only when every event of it is stored: a repeated
 * Idempotency-Key touches no contact and has no effects. An event's `created_at` is the
 * statement's start (after any exit lock it waited for), so an exit counts against a run's
 * trigger in the order the two were read and stored (exit-on-entry.ts).
 */
async function storeEvents(
  deps: IngestDeps,
  events: readonly PreparedEvent[],
  plan: EffectPlan,
  options: IngestOptions,
  contacts: readonly BatchContact[],
): Promise<{ row: StoreRow; lists?: ListsWrite }> {
  const routable = events.filter((event) => event.catalogViolations === undefined);
  const userIds = [...new Set(routable.map((event) => event.userId))];
  const contactOrd = new Map(contacts.map((contact, index) => [contact.externalId, index + 1]));
  const contactPart: RawBuilder<unknown> =
    contacts.length === 0
      ? sql`select null::uuid as id, null::text as email where false`
      : externalIdUpsert(
          sql`select external_id, email, properties::jsonb
          from unnest(${contacts.map((contact) => contact.externalId)}::text[], ${contacts.map((contact) => contact.email)}::text[],
                      ${contacts.map((contact) => JSON.stringify(contact.properties))}::text[]) with ordinality as c(external_id, email, properties, ord)
          where not exists (select 1 from input i where i.contact_ord = c.ord and i.id not in (select id from inserted))
          order by ord`,
        );
  const live =
    options.liveStates === 'all'
      ? sql``
      : sql`where journey_id = any(${[...new Set(plan.exits.map((exit) => exit.journeyId))]}::text[])
              or waiting_for = any(${[...new Set(routable.map((event) => event.name))]}::text[])`;
  // one event's statement (a dozen CTEs, in a few shapes) takes longer to plan than to run: it goes
  // by name, so each connection plans it a few times, not on every event; a batch's plan depends
  // on its size and its planning is shared by its events
  const named = events.length === 1 ? NAMED_STATEMENT : sql``;
  const statement = sql<StoreRow>`${named}
    with input as (
      select * from unnest(
        ${events.map((event) => event.id)}::uuid[], ${events.map((event) => event.userId)}::text[],
        ${events.map((event) => event.email ?? null)}::text[], ${events.map((event) => event.name)}::text[],
        ${events.map((event) => JSON.stringify(event.eventProperties))}::text[], ${events.map((event) => event.source)}::text[],
        ${events.map((event) => event.idempotencyKey ?? null)}::text[], ${events.map((event) => event.occurredAt.toISOString())}::timestamptz[],
        ${events.map((event) => (event.catalogViolations === undefined ? null : JSON.stringify(event.catalogViolations)))}::text[],
        ${events.map((event) => (event.externalId === undefined ? null : (contactOrd.get(event.externalId) ?? null)))}::int[]
      ) with ordinality as t(id, user_id, user_email, event, properties, source, idempotency_key, occurred_at, catalog_violations, contact_ord, ord)
    ), inserted as (
      insert into events (id, user_id, user_email, event, properties, source, idempotency_key, occurred_at, catalog_violations, created_at)
      select id, user_id, user_email, event, properties::jsonb, source, idempotency_key, occurred_at, catalog_violations::jsonb, statement_timestamp() from input order by ord
      on conflict (idempotency_key) do nothing
      returning id
    ), fresh as (
      select i.id, i.ord::int as ord, i.user_id, i.event, i.catalog_violations is null as routable from input i join inserted using (id)
    ), contact as (${contactPart}),
    live_locked as (
      -- locked, so the statement reads each state as last committed, not as of its snapshot: a run
      -- that starts waiting for this event while the statement runs is either seen waiting (and
      -- signalled), or waits for this commit before it looks back for the event (journey-context.ts)
      select s.id, s.user_id, s.journey_id, s.workflow_id, s.context ->> 'waitingFor' as waiting_for
      from journey_states s
      where s.user_id = any(${userIds}::text[]) and s.status in ${LIVE_STATUS_LIST}
      order by s.id
      for no key update
    ), live as (select * from live_locked ${live}),
    ${effectsCtes(plan)}, ${goalCandidatesCte}
    select
      coalesce((select json_agg(id) from inserted), '[]'::json) as inserted,
      ${goalCandidatesColumn},
      ${effectsColumns},
      coalesce((select json_agg(json_build_object('id', id, 'eventId', event_id)) from exited), '[]'::json) as exits,
      ${options.liveStates === 'all' ? sql`coalesce((select json_agg(json_build_object('id', id, 'journeyId', journey_id, 'userId', user_id)) from live), '[]'::json)` : sql`null::json`} as live_states,
      coalesce((select json_agg(json_build_object('id', id, 'email', email)) from contact), '[]'::json) as contacts`;
  // an event that may exit or convert a run: its users' exit locks first, so the statement reads
  // after an entry in flight and the entry's look-back waits for its commit (exit-lock.ts)
  const exiting = [...new Set([...plan.exits, ...plan.goals].map((effect) => events[effect.ord - 1]!.userId))];
  const lists = options.lists !== undefined && Object.keys(options.lists).length > 0 ? options.lists : undefined;
  if (exiting.length === 0 && lists === undefined) return { row: (await statement.execute(deps.db)).rows[0]! };
  return deps.db.transaction().execute(async (trx) => {
    if (exiting.length > 0) await lockExitsOf(trx, exiting);
    const row = (await statement.execute(trx)).rows[0]!;
    if (lists === undefined || row.inserted.length === 0) return { row };
    return { row, lists: await writeLists(deps, trx, events[0]!, row.contacts[0], lists) };
  });
}

/**
 * The `lists` option's write, in the store's transaction under a savepoint: the event's contact (the
 * statement's, else upserted here: an email-only event, or a statement refused with its contact)
 * and its memberships. When either fails, what it wrote is rolled back to the savepoint, logged and
 * answered, and the event commits.
 */
async function writeLists(
  deps: IngestDeps,
  trx: Db,
  event: PreparedEvent,
  stored: UpsertedContact | undefined,
  lists: Record<string, boolean>,
): Promise<ListsWrite> {
  await sql`savepoint lists`.execute(trx);
  let contact: UpsertedContact;
  try {
    contact = stored ?? (await upsertContact(trx, { userId: event.externalId, email: event.email, properties: event.contactProperties }));
  } catch (error) {
    await sql`rollback to savepoint lists`.execute(trx);
    deps.logger.warn({ err: error, userId: event.userId }, 'contact of an event with lists not resolved');
    return { error: 'Contact could not be resolved; list membership not written' };
  }
  try {
    await setMemberships(trx, contact.id, lists);
  } catch (error) {
    await sql`rollback to savepoint lists`.execute(trx);
    // the driver's text stays in the log: a response never carries database internals
    deps.logger.warn({ err: error, contactId: contact.id }, 'list membership write failed');
    return { ...(stored === undefined ? {} : { contact: stored }), error: 'List membership not written' };
  }
  await sql`release savepoint lists`.execute(trx);
  return { contact };
}

/**
 * The batch's contacts keyed by external id, sorted by it (the lock order), each merged over its
 * events in their order: the last address given wins, contactProperties merge shallowly.
 */
function batchContacts(events: readonly PreparedEvent[]): BatchContact[] {
  const byExternalId = new Map<string, BatchContact>();
  for (const event of events) {
    if (event.externalId === undefined) continue;
    const contact = byExternalId.get(event.externalId) ?? { externalId: event.externalId, email: null, properties: {} };
    byExternalId.set(event.externalId, { ...contact, email: event.email ?? contact.email, properties: { ...contact.properties, ...event.contactProperties } });
  }
  return [...byExternalId.values()].sort((a, b) => (a.externalId < b.externalId ? -1 : a.externalId > b.externalId ? 1 : 0));
}

/** The external ids whose contact the store statement wrote: those whose every event it stored. */
function writtenInStatement(events: readonly PreparedEvent[], inserted: ReadonlySet<string>): Set<string> {
  const written = new Set<string>();
  const partly = new Set<string>();
  for (const event of events) {
    if (event.externalId === undefined) continue;
    if (inserted.has(event.id)) written.add(event.externalId);
    else partly.add(event.externalId);
  }
  for (const externalId of partly) written.delete(externalId);
  return written;
}

/**
 * The goal broadcasts' conversions the stored events make, after their commit (only a goal
 * event of an exposed recipient gets here). A failure is logged and the events still count.
 */
async function convertBroadcastRecipients(
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

/**
 * The stored ids of the repeated events' keys and, in the same round trip, the goal broadcasts'
 * recipients those stored events may convert (the store statement's own CTE over them): their first
 * request may have died before it recorded the conversions, and a recipient converted already is no
 * candidate, so a plain repeat converts nothing again.
 */
async function storedRepeats(db: Db, repeats: readonly PreparedEvent[]): Promise<{ ids: Map<string, string>; goalCandidates: GoalCandidate[] }> {
  const keys = [...new Set(repeats.flatMap((event) => (event.idempotencyKey === undefined ? [] : [event.idempotencyKey])))];
  const { rows } = await sql<{ stored: { id: string; key: string }[]; goalCandidates: GoalCandidate[] }>`
    with fresh as (
      select e.id, i.ord::int as ord, e.user_id, e.event, e.catalog_violations is null as routable, e.idempotency_key
      from unnest(${keys}::text[]) with ordinality as i(key, ord) join events e on e.idempotency_key = i.key
    ), ${goalCandidatesCte}
    select coalesce((select json_agg(json_build_object('id', id, 'key', idempotency_key)) from fresh), '[]'::json) as stored,
      ${goalCandidatesColumn}`.execute(db);
  const row = rows[0]!;
  return { ids: new Map(row.stored.map((stored) => [stored.key, stored.id])), goalCandidates: row.goalCandidates };
}

/** The email-only contacts of repeated events, created when missing (one that exists is left as it is); a failure is logged. */
async function ensureRepeatedContacts(deps: IngestDeps, repeats: readonly PreparedEvent[]): Promise<void> {
  const ensured = new Set<string>();
  for (const event of repeats) {
    if (event.externalId !== undefined || event.email === undefined || ensured.has(event.userId)) continue;
    ensured.add(event.userId);
    await ensureContactByEmail(deps.db, { email: event.email, properties: event.contactProperties }).catch((error: unknown) => {
      deps.logger.warn({ err: error, userId: event.userId }, 'contact of a repeated event not resolved');
    });
  }
}

/** Each repeated event under the id its key was stored with: a stored event's conversions are judged on it (the same payload). */
function repeatsByStoredId(repeats: readonly PreparedEvent[], existing: ReadonlyMap<string, string>): PreparedEvent[] {
  return repeats.flatMap((event) => {
    const storedId = event.idempotencyKey === undefined ? undefined : existing.get(event.idempotencyKey);
    return storedId === undefined ? [] : [{ ...event, id: storedId }];
  });
}

/** An error PostgreSQL answered (not a lost connection, whose statement may have committed): the statement was rolled back whole. */
function refusedByServer(error: unknown): boolean {
  return error instanceof pg.DatabaseError;
}

function storedIdOf(existing: ReadonlyMap<string, string>, key: string | undefined): string {
  const id = key === undefined ? undefined : existing.get(key);
  if (id === undefined) throw new Error('event insert returned no id');
  return id;
}

function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const group = groups.get(keyOf(item));
    if (group === undefined) groups.set(keyOf(item), [item]);
    else group.push(item);
  }
  return groups;
}

/**
 * The contacts of `events` the store step did not write: every one keyed by external id in ONE
 * statement (sorted, as in the store statement); email-only events, rare in a batch, through the
 * single-contact upsert. Per contact the outcome equals the events applied in order.
 */
async function upsertContacts(deps: IngestDeps, events: readonly PreparedEvent[]): Promise<void> {
  const byEmail = new Map<string, { email: string; properties: Record<string, unknown> }>();
  for (const event of events) {
    if (event.externalId !== undefined || event.email === undefined) continue;
    const key = event.email.toLowerCase();
    const contact = byEmail.get(key) ?? { email: event.email, properties: {} };
    byEmail.set(key, { email: contact.email, properties: { ...contact.properties, ...event.contactProperties } });
  }
  const writes = [upsertContactsByExternalId(deps.db, batchContacts(events)), ...[...byEmail.values()].map((contact) => upsertContact(deps.db, contact))];
  const failure = (await Promise.allSettled(writes)).find((result) => result.status === 'rejected');
  if (failure !== undefined) throw failure.reason;
}
