import { sql } from 'kysely';
import { startRelayLoop, type RelayLoop } from '../concurrency/relay-loop';
import type { Db } from '../db/database';
import { NAMED_STATEMENT } from '../db/named-statements';
import type { AppLogger } from '../logging/logger';
import { deferSystemEmail, type SystemEmailStart } from './system-emails';

/** Between passes while nothing is due. */
const IDLE_MS = 2_000;
const BATCH = 50;
/** Longer than a pass can take (each start gives up after 5 s): two relays never start one row at once. */
const LEASE_MS = 120_000;
/** The run's own limit (temporal/workflows/system-email.ts): an email kept longer is pointless. */
const GIVE_UP_HOURS = 24;

export interface SystemEmailRelayDeps {
  db: Db;
  start: SystemEmailStart;
  logger: Pick<AppLogger, 'info' | 'warn' | 'error'>;
}

export interface SystemEmailRelayPass {
  claimed: number;
  started: number;
  /** a start failed (Temporal still down): the pass stopped there */
  unavailable: boolean;
}

/**
 * One pass over the due rows of `system_email_outbox` (system-emails.ts): the emails whose
 * process could not start their run (Temporal unreachable) or stopped before it did. Claims them
 * (FOR UPDATE SKIP LOCKED, then a lease, so several workers share the table), drops the ones kept
 * longer than their run would live, starts the others (a start of a run already started counts as
 * started) and stops at the first failure: the rest are due again at once, for the next pass after
 * the loop's backoff.
 */
export async function relaySystemEmails(deps: SystemEmailRelayDeps, limit = BATCH): Promise<SystemEmailRelayPass> {
  // by name, as the event effects' claim: every worker reads it every 2 s, found empty nearly always
  const { rows } = await sql<{ idempotencyKey: string; sealed: string; expired: boolean }>`${NAMED_STATEMENT}
    update system_email_outbox set next_attempt_at = now() + ${`${LEASE_MS} milliseconds`}::interval
    where idempotency_key in (
      select idempotency_key from system_email_outbox where next_attempt_at <= now()
      order by next_attempt_at limit ${limit} for update skip locked
    )
    returning idempotency_key as "idempotencyKey", sealed, created_at < now() - ${`${GIVE_UP_HOURS} hours`}::interval as expired`.execute(deps.db);
  const pass: SystemEmailRelayPass = { claimed: rows.length, started: 0, unavailable: false };
  const done: string[] = [];
  const untried: string[] = [];
  for (const row of rows) {
    if (pass.unavailable) untried.push(row.idempotencyKey);
    else if (row.expired) {
      deps.logger.error({ idempotencyKey: row.idempotencyKey }, `system email given up: its run could not be started within ${GIVE_UP_HOURS} h`);
      done.push(row.idempotencyKey);
    } else {
      try {
        await deps.start(row.idempotencyKey, row.sealed);
        done.push(row.idempotencyKey);
        pass.started += 1;
      } catch (error) {
        pass.unavailable = true;
        await deferSystemEmail(deps.db, row.idempotencyKey, (error as Error).message);
      }
    }
  }
  if (done.length > 0) await deps.db.deleteFrom('systemEmailOutbox').where('idempotencyKey', 'in', done).execute();
  if (untried.length > 0)
    await deps.db
      .updateTable('systemEmailOutbox')
      .set({ nextAttemptAt: sql<Date>`now()` })
      .where('idempotencyKey', 'in', untried)
      .execute();
  return pass;
}

/**
 * The loop that works off `system_email_outbox`, in the worker beside the event effects' relay: a
 * full batch is followed at once by the next, Temporal still down (or the pass failing) by a wait
 * that doubles from 1 s to 15 s, so a kept email's run starts within about 15 s of Temporal's return.
 */
export function startSystemEmailRelay(deps: SystemEmailRelayDeps): RelayLoop {
  return startRelayLoop(async () => {
    try {
      const outcome = await relaySystemEmails(deps);
      if (outcome.started > 0) deps.logger.info({ started: outcome.started }, 'kept system emails started');
      if (outcome.unavailable) return 'backoff';
      return outcome.claimed >= BATCH ? 0 : IDLE_MS;
    } catch (error) {
      deps.logger.warn({ err: error }, 'system email relay: pass failed; retrying');
      return 'backoff';
    }
  });
}
