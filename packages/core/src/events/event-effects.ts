import { sql, type RawBuilder } from 'kysely';
import { eachLimited } from '../concurrency/each-limited';
import type { Db } from '../db/database';
import { NAMED_STATEMENT } from '../db/named-statements';
import type { JsonObject } from '../db/schema';
import { recordDeadLetter } from '../dlq/dead-letters';
import { isAppError } from '../errors/app-error';
import { primitiveProperties, type JourneyOrchestrator, type JourneyRunRequest } from '../journeys/orchestrator';
import type { AppLogger } from '../logging/logger';
import { inSpanContinuing, SpanAttribute } from '../logging/trace-context';
import type { EventEffect } from './effects-statement';

/**
 * Carrying out one journey effect of a stored event (a row of `event_effects`, written with the
 * event: effects-statement.ts), the same way whoever does it: the process that stored the event
 * (effect-dispatcher.ts), a retried request, or the worker's relay (effect-relay.ts). Each is safe
 * to repeat, so two of them doing one row is harmless:
 * - a start goes under the workflow id built from (journey, user, event), with USE_EXISTING and
 *   REJECT_DUPLICATE: a start that did reach Temporal is found, not duplicated;
 * - a signal carries the event's id, and a run ignores an event id it has already received
 *   (temporal/workflows/journey-run.ts, `deliver`);
 * - an exit's state is already `exited` (the store statement did it); its effect is the run's
 *   cancellation, which a finished run ignores;
 * - a refused start is parked in the DLQ only by the executor that removes its row (`parkStart`).
 */

/** The stored event an effect comes from, as routing needs it. */
export interface RoutableEvent {
  id: string;
  name: string;
  userId: string;
  email: string | undefined;
  eventProperties: Record<string, unknown>;
  occurredAt: Date;
}

export interface EffectDeps {
  db: Db;
  orchestrator: Pick<JourneyOrchestrator, 'startJourney' | 'signalEvent' | 'cancelRun'>;
  logger: Pick<AppLogger, 'warn' | 'error'>;
}

/**
 * - done: carried out (or nothing left to do); the row can go
 * - parked: Temporal refused a start; it is in the DLQ and the row is gone
 * - gone: Temporal refused a start whose row another executor removed first (and parked or finished)
 * - unavailable: Temporal was unreachable or timed out; the row waits
 * - failed: any other failure of a signal or an exit; the row is tried again later
 */
export type EffectOutcome =
  { outcome: 'done' } | { outcome: 'parked' } | { outcome: 'gone' } | { outcome: 'unavailable'; error: string } | { outcome: 'failed'; error: string };

/** True for the orchestrator's "engine unreachable or timed out" failure, the one an effect waits out. */
export function isEngineUnavailable(error: unknown): boolean {
  return isAppError(error) && error.code === 'unavailable';
}

export function startRequest(event: RoutableEvent, journeyId: string): JourneyRunRequest {
  return {
    journeyId,
    userId: event.userId,
    userEmail: event.email ?? '',
    properties: primitiveProperties(event.eventProperties),
    trigger: { event: event.name, eventId: event.id, occurredAt: event.occurredAt.toISOString() },
  };
}

/**
 * Carries out one effect, in a span that continues the trace of the request that stored the event
 * (the outbox hop of docs/operations.md, "Tracing"): whoever carries it out and however late, the
 * Temporal start or signal and the run it reaches are in the request's trace.
 */
export function carryOutEffect(deps: EffectDeps, event: RoutableEvent, effect: EventEffect, attempts = 0): Promise<EffectOutcome> {
  const attributes = {
    [SpanAttribute.effect]: effect.kind,
    [SpanAttribute.journeyId]: effect.journeyId,
    [SpanAttribute.userId]: event.userId,
    [SpanAttribute.eventId]: event.id,
    [SpanAttribute.eventName]: event.name,
  };
  return inSpanContinuing(effect.traceContext, `journey effect ${effect.kind}`, attributes, () => attemptEffect(deps, event, effect, attempts));
}

async function attemptEffect(deps: EffectDeps, event: RoutableEvent, effect: EventEffect, attempts: number): Promise<EffectOutcome> {
  try {
    switch (effect.kind) {
      case 'start':
        await deps.orchestrator.startJourney(startRequest(event, effect.journeyId));
        break;
      case 'signal':
        await deps.orchestrator.signalEvent(effect.workflowId ?? '', {
          eventId: event.id,
          name: event.name,
          occurredAt: event.occurredAt.toISOString(),
          properties: primitiveProperties(event.eventProperties),
        });
        break;
      case 'exit':
        await deps.orchestrator.cancelRun(effect.workflowId ?? '');
        break;
    }
    return { outcome: 'done' };
  } catch (error) {
    const message = (error as Error).message;
    if (isEngineUnavailable(error)) return { outcome: 'unavailable', error: message };
    if (effect.kind !== 'start') {
      deps.logger.warn({ err: error, workflowId: effect.workflowId, kind: effect.kind }, 'journey effect failed; tried again later');
      return { outcome: 'failed', error: message };
    }
    // Temporal refused the start: waiting will not fix it, so an operator gets it in the DLQ
    if (!(await parkStart(deps.db, startRequest(event, effect.journeyId), effect, message, attempts))) return { outcome: 'gone' };
    deps.logger.error({ err: error, journeyId: effect.journeyId, userId: event.userId }, 'could not start journey run; parked in the DLQ');
    return { outcome: 'parked' };
  }
}

/**
 * Row removal and DLQ entry in one transaction: a start is either kept or parked, never both or
 * neither. Only the executor whose delete removed the row parks it: two can carry out one effect
 * at once (a retried request takes no claim, a dispatcher can outlive its lease), and the other's
 * delete waits on the row's lock, then finds it gone. True when this call parked it.
 */
export async function parkStart(
  db: Db,
  request: JourneyRunRequest,
  effect: Pick<EventEffect, 'eventId' | 'seq'>,
  error: string,
  attempts: number,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const removed = await trx
      .deleteFrom('eventEffects')
      .where('eventId', '=', effect.eventId)
      .where('seq', '=', effect.seq)
      .returning('seq')
      .executeTakeFirst();
    if (removed === undefined) return false;
    await recordDeadLetter(trx, {
      source: 'journey',
      sourceId: request.trigger.eventId,
      payload: { kind: 'journey-start', request: request as unknown as JsonObject },
      error,
      retryCount: attempts,
    });
    return true;
  });
}

type EffectKey = Pick<EventEffect, 'eventId' | 'seq'>;

/**
 * For a contact's delete or erasure: the journey effects still kept for its user ids (`ownUserIds`)
 * go, so a start Temporal could not take before the removal never enrols the person after it; their
 * signals and exits are moot, the removal exits their live runs in the same transaction. Answers
 * how many went.
 */
export async function dropEffectsOf(db: Db, userIds: RawBuilder<string[]>): Promise<number> {
  const result = await db
    .deleteFrom('eventEffects')
    .where('userId', '=', sql<string>`any(${userIds})`)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Removes the rows of effects carried out, in one statement (by name: the api sends one every 250 ms under load). */
export async function deleteEffects(db: Db, keys: readonly EffectKey[]): Promise<void> {
  if (keys.length === 0) return;
  await sql`${NAMED_STATEMENT}
    delete from event_effects where (event_id, seq) in (
      select * from unnest(${keys.map((key) => key.eventId)}::uuid[], ${keys.map((key) => key.seq)}::smallint[]))`.execute(db);
}

/**
 * Gives effects back for a later attempt, in one statement: due `delaySeconds` from now, with the
 * failure that stopped them (shown to an operator as the effect's last error).
 */
export async function deferEffects(db: Db, keys: readonly EffectKey[], error: string, delaySeconds = 0): Promise<void> {
  if (keys.length === 0) return;
  await sql`
    update event_effects set attempts = attempts + 1, last_error = ${error}, next_attempt_at = now() + ${`${delaySeconds} seconds`}::interval
    where (event_id, seq) in (select * from unnest(${keys.map((key) => key.eventId)}::uuid[], ${keys.map((key) => key.seq)}::smallint[]))`.execute(db);
}

/** The effects kept now (the /metrics gauges and the studio overview's figure), in all and of starts alone. */
export async function eventEffectStats(db: Db): Promise<{ pending: number; oldestAt: Date | null; starts: { pending: number; oldestAt: Date | null } }> {
  const rows = await db
    .selectFrom('eventEffects')
    .select((eb) => ['kind', eb.fn.countAll<number>().as('pending'), eb.fn.min('createdAt').as('oldestAt')])
    .groupBy('kind')
    .execute();
  const oldest = (dates: (Date | null)[]) =>
    dates.reduce<Date | null>((min, date) => (date === null || (min !== null && min <= date) ? min : new Date(date)), null);
  const start = rows.find((row) => row.kind === 'start');
  return {
    pending: rows.reduce((sum, row) => sum + Number(row.pending), 0),
    oldestAt: oldest(rows.map((row) => row.oldestAt)),
    starts: { pending: Number(start?.pending ?? 0), oldestAt: oldest([start?.oldestAt ?? null]) },
  };
}

/** A kept effect read with its event (the relay's claim, a retried request's look-up). */
export interface StoredEffect extends EventEffect {
  attempts: number;
  lastError: string | null;
  createdAt: Date;
  /** null when the event is gone (erased since): there is nothing left to route */
  event: RoutableEvent | null;
}

/** The columns `storedEffect` reads, of `event_effects f` left-joined to `events e`. */
export const storedEffectColumns = sql`
  f.event_id as "eventId", f.seq, f.kind, f.journey_id as "journeyId", f.workflow_id as "workflowId", f.trace_context as "traceContext", f.attempts,
  f.last_error as "lastError", f.created_at as "createdAt", e.id as "storedEventId", e.user_id as "userId", e.user_email as "userEmail",
  e.event as name, e.properties, e.occurred_at as "occurredAt"`;

export interface StoredEffectRow extends EventEffect {
  attempts: number;
  lastError: string | null;
  createdAt: Date;
  storedEventId: string | null;
  userId: string;
  userEmail: string | null;
  name: string;
  properties: Record<string, unknown>;
  occurredAt: Date;
}

export function storedEffect(row: StoredEffectRow): StoredEffect {
  const { storedEventId, userId, userEmail, name, properties, occurredAt, createdAt, ...effect } = row;
  return {
    ...effect,
    createdAt: new Date(createdAt),
    event:
      storedEventId === null
        ? null
        : { id: storedEventId, name, userId, email: userEmail ?? undefined, eventProperties: properties, occurredAt: new Date(occurredAt) },
  };
}

export interface SettleOptions {
  /** effects in flight at once */
  concurrency?: number;
  /** JOURNEY_START_RETRY_HOURS: an effect kept longer is given up (a start parked in the DLQ) */
  retryHours?: number;
}

export interface SettlePass {
  done: number;
  /** given up: a start refused or out of retry time (in the DLQ), a signal or exit out of retry time */
  parked: number;
  /** Temporal was unreachable: the pass stopped at the first such failure */
  unavailable: boolean;
  /** the effects the pass did not reach (after an unavailable one) */
  untried: StoredEffect[];
}

/** Wait before a signal or an exit that failed for another reason than Temporal being down is tried again: doubling, up to 15 min. */
function failedDelaySeconds(attempts: number): number {
  return Math.min(2 ** Math.min(attempts, 10), 900);
}

/**
 * Carries out kept effects and records each outcome on its row: done ones deleted, the others
 * deferred with their error. The first "unavailable" ends the pass: Temporal is still down, and
 * the rest would only wait out the same deadline one by one.
 */
export async function settleStoredEffects(deps: EffectDeps, effects: readonly StoredEffect[], options: SettleOptions = {}): Promise<SettlePass> {
  const pass: SettlePass = { done: 0, parked: 0, unavailable: false, untried: [] };
  const finished: StoredEffect[] = [];
  const live: { effect: StoredEffect; event: RoutableEvent }[] = [];
  const expiresBefore = options.retryHours === undefined ? undefined : Date.now() - options.retryHours * 3_600_000;
  for (const effect of effects) {
    if (effect.event === null) {
      // the event was erased since: nothing of it is to be routed any more
      finished.push(effect);
    } else if (expiresBefore !== undefined && effect.createdAt.getTime() <= expiresBefore) {
      const reason = `not carried out within JOURNEY_START_RETRY_HOURS (${options.retryHours} h, ${effect.attempts} attempts): ${effect.lastError ?? ''}`;
      if (effect.kind === 'start') {
        if (await parkStart(deps.db, startRequest(effect.event, effect.journeyId), effect, reason, effect.attempts)) pass.parked += 1;
      } else {
        deps.logger.error({ eventId: effect.eventId, workflowId: effect.workflowId, kind: effect.kind }, `journey ${effect.kind} given up: ${reason}`);
        finished.push(effect);
        pass.parked += 1;
      }
    } else live.push({ effect, event: effect.event });
  }

  const failed: { effect: StoredEffect; error: string; delaySeconds: number }[] = [];
  const started = await eachLimited(
    live,
    options.concurrency ?? 8,
    async ({ effect, event }) => {
      const result = await carryOutEffect(deps, event, effect, effect.attempts);
      if (result.outcome === 'done') {
        finished.push(effect);
        pass.done += 1;
      } else if (result.outcome === 'parked') pass.parked += 1;
      else if (result.outcome !== 'gone') {
        if (result.outcome === 'unavailable') pass.unavailable = true;
        failed.push({ effect, error: result.error, delaySeconds: result.outcome === 'unavailable' ? 0 : failedDelaySeconds(effect.attempts) });
      }
    },
    { keepGoing: () => !pass.unavailable },
  );
  pass.untried = live.slice(started).map((item) => item.effect);
  await deleteEffects(deps.db, finished);
  for (const { effect, error, delaySeconds } of failed) await deferEffects(deps.db, [effect], error, delaySeconds);
  return pass;
}
