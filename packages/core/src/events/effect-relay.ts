import { sql } from 'kysely';
import { NAMED_STATEMENT } from '../db/named-statements';
import { startRelayLoop, type RelayLoop } from '../concurrency/relay-loop';
import type { AppLogger } from '../logging/logger';
import { settleStoredEffects, storedEffect, storedEffectColumns, type EffectDeps, type StoredEffectRow } from './event-effects';

/** Between passes while nothing is due: one indexed read of an (almost always) empty range. */
const IDLE_MS = 2_000;
const BATCH = 100;

export interface EffectRelayDeps extends EffectDeps {
  logger: Pick<AppLogger, 'info' | 'warn' | 'error'>;
  /** JOURNEY_START_RETRY_HOURS: how long an effect is retried before it is given up (a start parked in the DLQ) */
  retryHours: number;
}

export interface RelayPassOptions {
  /** rows claimed per pass */
  limit?: number;
  /** effects in flight at once */
  concurrency?: number;
  /**
   * How long a claimed row is hidden from other relays. Longer than a pass can take (each call
   * gives up after its deadline), so two relays never work on one row at the same time; a relay
   * that dies mid-pass leaves its rows to the others once the lease runs out.
   */
  leaseMs?: number;
}

export interface RelayPass {
  claimed: number;
  done: number;
  /** given up: a start refused or out of retry time (DLQ), a signal or exit out of retry time */
  parked: number;
  /** Temporal was unreachable: the pass stopped at the first such failure */
  unavailable: boolean;
}

/**
 * One pass of the relay over `event_effects` (effects-statement.ts): claims the due rows (FOR
 * UPDATE SKIP LOCKED, then a lease, so several workers share the table without working on one row
 * twice) with their events, and carries them out (event-effects.ts). Due rows are the ones the
 * process that stored the event could not carry out: it gave them back (Temporal unreachable) or
 * died before their lease ran out.
 */
export async function relayEventEffects(deps: EffectRelayDeps, options: RelayPassOptions = {}): Promise<RelayPass> {
  const limit = options.limit ?? BATCH;
  const leaseMs = options.leaseMs ?? 120_000;
  // by name (named-statements.ts): every worker reads it every 2 s, found empty nearly always
  const claimed = await sql<StoredEffectRow>`${NAMED_STATEMENT}
    with claimed as (
      update event_effects set next_attempt_at = now() + ${`${leaseMs} milliseconds`}::interval
      where (event_id, seq) in (
        select event_id, seq from event_effects where next_attempt_at <= now()
        order by next_attempt_at limit ${limit} for update skip locked
      )
      returning *
    )
    select ${storedEffectColumns} from claimed f left join events e on e.id = f.event_id`.execute(deps.db);
  const pass: RelayPass = { claimed: claimed.rows.length, done: 0, parked: 0, unavailable: false };
  if (claimed.rows.length === 0) return pass;
  const settled = await settleStoredEffects(deps, claimed.rows.map(storedEffect), {
    retryHours: deps.retryHours,
    ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
  });
  // rows this pass did not reach are due again at once (the relay's own backoff spaces the passes)
  if (settled.untried.length > 0)
    await sql`
      update event_effects set next_attempt_at = now()
      where (event_id, seq) in (select * from unnest(${settled.untried.map((effect) => effect.eventId)}::uuid[], ${settled.untried.map((effect) => effect.seq)}::smallint[]))`.execute(
      deps.db,
    );
  return { ...pass, done: settled.done, parked: settled.parked, unavailable: settled.unavailable };
}

export type EffectRelay = RelayLoop;

/**
 * The loop that works off the due rows of `event_effects`. The worker runs it (one per worker
 * process; docs/operations.md says why): a full batch is followed at once by the next, Temporal
 * still down by a wait that doubles from 1 s to 15 s, so an outage costs one failing call per wait
 * and the backlog is carried out within 15 s of Temporal's return. A pass that fails itself
 * (PostgreSQL unreachable) is logged and tried again after the same backoff.
 */
export function startEffectRelay(deps: EffectRelayDeps): EffectRelay {
  return startRelayLoop(async () => {
    try {
      const outcome = await relayEventEffects(deps, { limit: BATCH });
      if (outcome.done > 0 || outcome.parked > 0) {
        deps.logger.info({ done: outcome.done, parked: outcome.parked }, 'kept journey effects relayed');
      }
      if (outcome.unavailable) return 'backoff';
      return outcome.claimed >= BATCH ? 0 : IDLE_MS;
    } catch (error) {
      deps.logger.warn({ err: error }, 'journey effect relay: pass failed; retrying');
      return 'backoff';
    }
  });
}
