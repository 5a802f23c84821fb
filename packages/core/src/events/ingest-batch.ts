import { sql } from 'kysely';
import { upsertContact, upsertContactsByExternalId } from '../contacts/upsert-contact';
import type { IngestDeps } from './ingest-deps';
import { prepareEvent, type EventInput, type PreparedEvent } from './prepare-event';
import { effectsColumns, effectsCtes, planEffects, type EventEffect } from './effects-statement';
import { LIVE_STATUS_LIST } from '../journeys/live-statuses';
import { goalCandidatesColumn, goalCandidatesCte, type GoalCandidate } from '../broadcasts/broadcast-conversions';
import { convertBroadcastRecipients } from './ingest';

/** One event of a batch: an ingest input without list membership (a per-contact write). */
export type BatchIngestInput = EventInput;

export interface BatchIngestResult {
  /** false when its idempotency key was already stored (nothing routed, nothing exited) */
  stored: boolean;
  eventId: string;
  /** journey states this event moved to `exited` */
  exitedStateIds: string[];
}

interface BatchStoreRow {
  inserted: string[];
  effects: EventEffect[];
  /** the states exited, each with the event that exited it */
  exits: { id: string; eventId: string }[];
  goalCandidates: GoalCandidate[];
}

/**
 * The ingest pipeline for many events at once (store with exit check and effects → route →
 * contact upsert), with set-based SQL: ONE statement stores every event, reads the live states
 * that can matter (a journey with an exitOn rule one of the batch's events passes, or a run waiting
 * for one of its names), applies the exits and keeps every event's journey effects in
 * `event_effects` (effects-statement.ts), which this process then carries out off the caller's
 * path (effect-dispatcher.ts); ONE statement upserts the contacts of every userId in the batch. Per event the outcome is what `ingestEvent` would produce run after run,
 * except that the states are read once for the whole batch: a state matched by several events of
 * the batch exits once, on the first of them. Used by the tracking event queue (bursts of
 * email.opened / email.link_clicked); the data plane keeps `ingestEvent`. Every event passes the
 * same checks as there (`prepareEvent`: name, time, catalog); an invalid input rejects the whole
 * batch before anything is written.
 */
export async function ingestEvents(deps: IngestDeps, inputs: readonly BatchIngestInput[]): Promise<BatchIngestResult[]> {
  if (inputs.length === 0) return [];
  const events = inputs.map((input) => prepareEvent(deps, input));
  // a quarantined event (catalog violations) is stored and upserts its contact, but routes nothing
  const routable = events.filter((event) => event.catalogViolations === undefined);
  const names = [...new Set(routable.map((event) => event.name))];
  const userIds = [...new Set(routable.map((event) => event.userId))];
  const plan = planEffects(deps, events);
  const exitJourneyIds = [...new Set(plan.exits.map((exit) => exit.journeyId))];

  // 1. store, with every event's journey effects (effects-statement.ts), in one round trip
  const stored = await sql<BatchStoreRow>`
    with input as (
      select * from unnest(
        ${events.map((event) => event.id)}::uuid[], ${events.map((event) => event.userId)}::text[],
        ${events.map((event) => event.email ?? null)}::text[], ${events.map((event) => event.name)}::text[],
        ${events.map((event) => JSON.stringify(event.eventProperties))}::text[], ${events.map((event) => event.source)}::text[],
        ${events.map((event) => event.idempotencyKey ?? null)}::text[], ${events.map((event) => event.occurredAt.toISOString())}::timestamptz[],
        ${events.map((event) => (event.catalogViolations === undefined ? null : JSON.stringify(event.catalogViolations)))}::text[]
      ) with ordinality as t(id, user_id, user_email, event, properties, source, idempotency_key, occurred_at, catalog_violations, ord)
    ), inserted as (
      insert into events (id, user_id, user_email, event, properties, source, idempotency_key, occurred_at, catalog_violations)
      select id, user_id, user_email, event, properties::jsonb, source, idempotency_key, occurred_at, catalog_violations::jsonb from input order by ord
      on conflict (idempotency_key) do nothing
      returning id
    ), fresh as (
      select i.id, i.ord::int as ord, i.user_id, i.event, i.catalog_violations is null as routable from input i join inserted using (id)
    ), live as (
      select s.id, s.user_id, s.journey_id, s.workflow_id, s.context ->> 'waitingFor' as waiting_for
      from journey_states s
      where s.user_id = any(${userIds}::text[]) and s.status in ${LIVE_STATUS_LIST}
        and (s.journey_id = any(${exitJourneyIds}::text[]) or s.context ->> 'waitingFor' = any(${names}::text[]))
    ), ${effectsCtes(plan)}, ${goalCandidatesCte}
    select
      coalesce((select json_agg(id) from inserted), '[]'::json) as inserted,
      ${goalCandidatesColumn},
      ${effectsColumns},
      coalesce((select json_agg(json_build_object('id', id, 'eventId', event_id)) from exited), '[]'::json) as exits`.execute(deps.db);
  const row = stored.rows[0]!;
  const inserted = new Set(row.inserted);
  // a repeated key (stored earlier, by a concurrent request, or earlier in this batch): its stored
  // id, read after the statement has committed, so every one of those is visible. Rare, so the
  // common batch pays no lookup.
  const repeats = events.filter((event) => !inserted.has(event.id));
  const existing = new Map<string, string>();
  if (repeats.length > 0) {
    const rows = await deps.db
      .selectFrom('events')
      .select(['id', 'idempotencyKey'])
      .where(
        'idempotencyKey',
        'in',
        repeats.map((event) => event.idempotencyKey ?? ''),
      )
      .execute();
    for (const stored of rows) if (stored.idempotencyKey !== null) existing.set(stored.idempotencyKey, stored.id);
    // whatever of those events' effects is still kept is carried out now (as ingestEvent does)
    await Promise.all([...new Set(existing.values())].map((eventId) => deps.effects.finish(eventId)));
  }
  const fresh = events.filter((event) => inserted.has(event.id));
  await deps.faults?.afterCommit?.(fresh);

  // 2. route: the effects are committed; this process carries them out at once
  const effectsByEvent = new Map<string, EventEffect[]>();
  for (const effect of row.effects) effectsByEvent.set(effect.eventId, [...(effectsByEvent.get(effect.eventId) ?? []), effect]);
  for (const event of fresh) deps.effects.dispatch(event, effectsByEvent.get(event.id) ?? []);
  await convertBroadcastRecipients(deps, row.goalCandidates, fresh);

  // 3. the exit check ran in the store statement: each live state exited on the first event of the batch that matches a rule
  const exited = new Map<string, string[]>();
  for (const exit of row.exits) exited.set(exit.eventId, [...(exited.get(exit.eventId) ?? []), exit.id]);

  // 4. contact upsert: a failure is logged and the events still count
  try {
    await upsertContacts(deps, fresh);
  } catch (error) {
    deps.logger.warn({ err: error, count: fresh.length }, 'contact resolution failed; events processed without it');
  }

  return events.map((event) =>
    inserted.has(event.id)
      ? { stored: true, eventId: event.id, exitedStateIds: exited.get(event.id) ?? [] }
      : { stored: false, eventId: storedIdOf(existing, event.idempotencyKey), exitedStateIds: [] },
  );
}

function storedIdOf(existing: ReadonlyMap<string, string>, key: string | undefined): string {
  const id = key === undefined ? undefined : existing.get(key);
  if (id === undefined) throw new Error('event insert returned no id');
  return id;
}

/**
 * Step 4 for a batch: every contact with an external id in ONE statement (sorted by external id,
 * so concurrent batches lock rows in the same order); email-only events, rare here, go through
 * the single-contact upsert. Per contact the outcome equals the events applied in order: the
 * last address given wins, contactProperties merge shallowly, lastSeenAt moves.
 */
async function upsertContacts(deps: IngestDeps, events: readonly PreparedEvent[]): Promise<void> {
  const byExternalId = new Map<string, { email: string | null; properties: Record<string, unknown> }>();
  const byEmail = new Map<string, { email: string; properties: Record<string, unknown> }>();
  for (const event of events) {
    if (event.externalId !== undefined) {
      const contact = byExternalId.get(event.externalId) ?? { email: null, properties: {} };
      byExternalId.set(event.externalId, { email: event.email ?? contact.email, properties: { ...contact.properties, ...event.contactProperties } });
    } else if (event.email !== undefined) {
      const key = event.email.toLowerCase();
      const contact = byEmail.get(key) ?? { email: event.email, properties: {} };
      byEmail.set(key, { email: contact.email, properties: { ...contact.properties, ...event.contactProperties } });
    }
  }
  const contacts = [...byExternalId].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([externalId, contact]) => ({ externalId, ...contact }));
  const writes: Promise<unknown>[] = [upsertContactsByExternalId(deps.db, contacts)];
  for (const contact of byEmail.values()) writes.push(upsertContact(deps.db, contact));
  const failures = (await Promise.allSettled(writes)).filter((result) => result.status === 'rejected');
  if (failures.length > 0) throw (failures[0] as PromiseRejectedResult).reason;
}
