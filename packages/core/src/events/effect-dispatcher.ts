import { sql } from 'kysely';
import type { EventEffect } from './effects-statement';
import {
  carryOutEffect,
  deferEffects,
  deleteEffects,
  settleStoredEffects,
  storedEffect,
  storedEffectColumns,
  type EffectDeps,
  type RoutableEvent,
  type StoredEffectRow,
} from './event-effects';

/** Temporal calls in flight at once from one process. */
const CONCURRENCY = 32;
/** Effects waiting in memory past this go straight to the worker's relay instead (a burst while Temporal is slow). */
const MAX_QUEUED = 5_000;
/** After Temporal was found unreachable, new effects go to the relay for this long (doubling up to the max). */
const DOWN_MIN_MS = 1_000;
const DOWN_MAX_MS = 15_000;
/**
 * Done rows are deleted together: one statement per this many ms, not one per effect (at 10 events
 * a second, 5 ms made it one delete per event). A row is only the safety net, leased to this
 * process for EFFECT_LEASE_SECONDS, so deleting it a moment later changes nothing but the count of
 * kept effects in that moment; one left behind by a crash is redone by the relay, harmlessly.
 */
const FLUSH_MS = 250;
/** Effect failure a signal or an exit waits out before the relay tries it again. */
const FAILED_RETRY_SECONDS = 10;

/**
 * This process's side of the event outbox: the effects a statement has just committed (journey
 * starts, signals, exits: effects-statement.ts) are carried out here at once, after the request
 * has been answered, so a journey-starting request costs a commit, not a Temporal round trip. The
 * rows are the safety net: each is deleted once done (in batches); an effect this process cannot
 * do now (Temporal unreachable, too many queued, the process stopping) is given back to the
 * worker's relay (effect-relay.ts) by making its row due, and a process that dies leaves its rows
 * to the relay when their lease (EFFECT_LEASE_SECONDS) runs out.
 */
export interface EffectDispatcher {
  /** hands over the effects `event` has just committed; returns at once */
  dispatch(event: RoutableEvent, effects: readonly EventEffect[]): void;
  /** carries out now whatever of a stored event's effects is still kept (a retried request) */
  finish(eventId: string): Promise<void>;
  /** stops taking effects, lets the ones in flight end and gives the queued ones to the relay */
  close(): Promise<void>;
}

interface Queued {
  event: RoutableEvent;
  effect: EventEffect;
}

export function createEffectDispatcher(deps: EffectDeps): EffectDispatcher {
  const queue: Queued[] = [];
  let active = 0;
  let closed = false;
  let downUntil = 0;
  let downMs = 0;
  const idle: (() => void)[] = [];

  // batched row writes: deletes of done effects, deferrals of the ones given back
  let done: EventEffect[] = [];
  const deferred = new Map<string, EventEffect[]>();
  let flushTimer: NodeJS.Timeout | undefined;
  let flushing: Promise<void> = Promise.resolve();
  const flush = (): Promise<void> => {
    flushTimer = undefined;
    const deletes = done;
    done = [];
    const defers = [...deferred];
    deferred.clear();
    flushing = flushing.then(async () => {
      try {
        await deleteEffects(deps.db, deletes);
        for (const [error, keys] of defers) await deferEffects(deps.db, keys, error);
      } catch (error) {
        // the rows stay as they were: the relay carries them out again, which is harmless
        deps.logger.warn({ err: error }, 'event effects: could not update the outbox rows; the relay redoes them');
      }
    });
    return flushing;
  };
  const scheduleFlush = () => {
    flushTimer ??= setTimeout(() => void flush(), FLUSH_MS);
  };
  const giveBack = (effects: readonly EventEffect[], error: string) => {
    if (effects.length === 0) return;
    deferred.set(error, [...(deferred.get(error) ?? []), ...effects]);
    scheduleFlush();
  };

  const run = async ({ event, effect }: Queued): Promise<void> => {
    const result = await carryOutEffect(deps, event, effect);
    switch (result.outcome) {
      case 'done':
        done.push(effect);
        scheduleFlush();
        downMs = 0;
        return;
      case 'parked':
      case 'gone':
        return;
      case 'unavailable': {
        // Temporal is down: this and everything queued wait in the outbox for the relay
        downMs = Math.min(Math.max(downMs * 2, DOWN_MIN_MS), DOWN_MAX_MS);
        downUntil = Date.now() + downMs;
        giveBack([effect, ...queue.splice(0).map((item) => item.effect)], result.error);
        return;
      }
      case 'failed':
        await deferEffects(deps.db, [effect], result.error, FAILED_RETRY_SECONDS).catch((error: unknown) => {
          deps.logger.warn({ err: error }, 'event effects: could not defer a failed effect; the relay redoes it');
        });
        return;
    }
  };

  const pump = () => {
    while (active < CONCURRENCY && queue.length > 0) {
      const item = queue.shift()!;
      active += 1;
      void run(item)
        .catch((error: unknown) => deps.logger.error({ err: error }, 'event effects: an effect failed unexpectedly; the relay redoes it'))
        .finally(() => {
          active -= 1;
          pump();
          if (active === 0 && queue.length === 0) for (const resolve of idle.splice(0)) resolve();
        });
    }
  };

  return {
    dispatch(event, effects) {
      if (effects.length === 0) return;
      if (closed) return giveBack(effects, 'the process that stored the event was stopping');
      if (Date.now() < downUntil) return giveBack(effects, 'Temporal was unreachable a moment ago');
      if (queue.length + effects.length > MAX_QUEUED) return giveBack(effects, 'too many effects queued in the process that stored the event');
      for (const effect of effects) queue.push({ event, effect });
      pump();
    },

    async finish(eventId) {
      const rows = await sql<StoredEffectRow>`
        select ${storedEffectColumns} from event_effects f left join events e on e.id = f.event_id where f.event_id = ${eventId}`.execute(deps.db);
      await settleStoredEffects(deps, rows.rows.map(storedEffect));
    },

    async close() {
      closed = true;
      giveBack(
        queue.splice(0).map((item) => item.effect),
        'the process that stored the event was stopping',
      );
      if (active > 0) await new Promise<void>((resolve) => idle.push(resolve));
      if (flushTimer !== undefined) clearTimeout(flushTimer);
      await flush();
    },
  };
}
