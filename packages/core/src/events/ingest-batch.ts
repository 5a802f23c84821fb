import { sql } from 'kysely';
import { newRowId } from '../db/ids';
import { upsertContact, upsertContactsByExternalId } from '../contacts/upsert-contact';
import { checkContactProperties } from '../contacts/time-zone';
import { badRequest } from '../errors/app-error';
import { exitStates } from '../journeys/exit-states';
import { ingestUserId, type IngestInput } from './ingest';
import type { IngestDeps } from './ingest-deps';
import { matchesExitRule } from './exit-rule';
import { overridesJson, routeEvent, type LiveState } from './route-event';
import { LIVE_STATUS_LIST } from '../journeys/live-statuses';

/** One event of a batch: an ingest input without list membership (a per-contact write). */
export type BatchIngestInput = Omit<IngestInput, 'lists'>;

export interface BatchIngestResult {
  /** false when its idempotency key was already stored (nothing routed, nothing exited) */
  stored: boolean;
  eventId: string;
  /** journey states this event moved to `exited` */
  exitedStateIds: string[];
}

interface PreparedEvent {
  id: string;
  name: string;
  userId: string;
  externalId: string | undefined;
  email: string | undefined;
  eventProperties: Record<string, unknown>;
  contactProperties: Record<string, unknown> | undefined;
  occurredAt: Date;
  idempotencyKey: string | null;
  source: string;
}

interface UserLiveState extends LiveState {
  userId: string;
}

interface BatchStoreRow {
  inserted: string[];
  liveStates: UserLiveState[];
  overrides: Record<string, boolean>;
}

/**
 * The ingest pipeline for many events at once (store → route → exit check → contact upsert),
 * with set-based SQL: ONE statement stores every event and reads the live states that can
 * matter (a journey with an exitOn rule for one of the batch's names, or a run waiting for one)
 * and the overrides of the triggered journeys; ONE statement upserts the contacts of every
 * userId in the batch. Per event the outcome is what `ingestEvent` would produce run after run,
 * except that the states are read once for the whole batch: a state matched by several events of
 * the batch exits once, on the first of them. Used by the tracking event queue (bursts of
 * email.opened / email.link_clicked); the data plane keeps `ingestEvent`. An invalid input
 * rejects the whole batch before anything is written.
 */
export async function ingestEvents(deps: IngestDeps, inputs: readonly BatchIngestInput[]): Promise<BatchIngestResult[]> {
  if (inputs.length === 0) return [];
  const events = inputs.map(prepare);
  const names = [...new Set(events.map((event) => event.name))];
  const userIds = [...new Set(events.map((event) => event.userId))];
  const candidateIds = [...new Set(names.flatMap((name) => deps.journeys.triggeredBy(name).map((journey) => journey.id)))];
  const exitJourneyIds = [...new Set(names.flatMap((name) => deps.journeys.exitedBy(name).map((journey) => journey.id)))];

  // 1. store (+ read what routing and the exit check need), in one round trip
  const stored = await sql<BatchStoreRow>`
    with input as (
      select * from unnest(
        ${events.map((event) => event.id)}::uuid[], ${events.map((event) => event.userId)}::text[],
        ${events.map((event) => event.email ?? null)}::text[], ${events.map((event) => event.name)}::text[],
        ${events.map((event) => JSON.stringify(event.eventProperties))}::text[], ${events.map((event) => event.source)}::text[],
        ${events.map((event) => event.idempotencyKey)}::text[], ${events.map((event) => event.occurredAt.toISOString())}::timestamptz[]
      ) with ordinality as t(id, user_id, user_email, event, properties, source, idempotency_key, occurred_at, ord)
    ), inserted as (
      insert into events (id, user_id, user_email, event, properties, source, idempotency_key, occurred_at)
      select id, user_id, user_email, event, properties::jsonb, source, idempotency_key, occurred_at from input order by ord
      on conflict (idempotency_key) do nothing
      returning id
    )
    select
      coalesce((select json_agg(id) from inserted), '[]'::json) as inserted,
      coalesce((
        select json_agg(json_build_object('id', s.id, 'userId', s.user_id, 'journeyId', s.journey_id, 'workflowId', s.workflow_id,
                                          'waitingFor', s.context ->> 'waitingFor') order by s.created_at)
        from journey_states s
        where s.user_id = any(${userIds}::text[]) and s.status in ${LIVE_STATUS_LIST}
          and (s.journey_id = any(${exitJourneyIds}::text[]) or s.context ->> 'waitingFor' = any(${names}::text[]))
      ), '[]'::json) as live_states,
      ${overridesJson(candidateIds)} as overrides`.execute(deps.db);
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
  }
  const fresh = events.filter((event) => inserted.has(event.id));

  // 2. route: start every enabled journey triggered by each new event; deliver to runs waiting for it
  const statesByUser = new Map<string, UserLiveState[]>();
  for (const state of row.liveStates) statesByUser.set(state.userId, [...(statesByUser.get(state.userId) ?? []), state]);
  await Promise.all(fresh.map((event) => routeEvent(deps, event, statesByUser.get(event.userId) ?? [], row.overrides)));

  // 3. exit check: each live state exits on the first event of the batch that matches a rule
  const claimed = new Set<string>();
  const exitsByEvent = new Map<PreparedEvent, UserLiveState[]>();
  for (const event of fresh) {
    const matching = (statesByUser.get(event.userId) ?? []).filter((state) => !claimed.has(state.id) && matchesExitRule(deps, state, event));
    for (const state of matching) claimed.add(state.id);
    if (matching.length > 0) exitsByEvent.set(event, matching);
  }
  const exited = new Map<string, string[]>();
  await Promise.all(
    [...exitsByEvent].map(async ([event, states]) => {
      const ids = await exitStates(deps, states, { reason: 'exit_rule', event: event.name, eventId: event.id });
      exited.set(event.id, [...ids]);
    }),
  );

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

function prepare(input: BatchIngestInput): PreparedEvent {
  const name = input.name.trim();
  if (name === '') throw badRequest('name must not be empty');
  const userId = ingestUserId(input);
  checkContactProperties(input.contactProperties, 'contactProperties');
  return {
    id: newRowId(),
    name,
    userId,
    externalId: input.userId === undefined || input.userId === '' ? undefined : input.userId,
    email: input.email?.trim() || undefined,
    eventProperties: input.eventProperties ?? {},
    contactProperties: input.contactProperties,
    occurredAt: input.timestamp ?? new Date(),
    idempotencyKey: input.idempotencyKey ?? null,
    source: input.source,
  };
}

function storedIdOf(existing: ReadonlyMap<string, string>, key: string | null): string {
  const id = key === null ? undefined : existing.get(key);
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
