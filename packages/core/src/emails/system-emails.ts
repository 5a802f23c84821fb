import { sql } from 'kysely';
import type { Db } from '../db/database';
import type { AppLogger } from '../logging/logger';
import { sealSendInput, type SealKey } from './sealed-input';
import type { SendEmailInput } from './send-email';

/**
 * Waymark's own emails (password resets, invitations, alert notices): each is a workflow run
 * (`system-email:<idempotency key>`) whose activity sends through the normal send path, so the
 * ledger row is sent exactly once (docs/email.md, "System emails"). Before its run is started the
 * email is kept in `system_email_outbox` (its input sealed), in the caller's transaction where
 * there is one: an email Temporal cannot take now (an outage) is started by the worker's relay
 * (system-email-relay.ts) once Temporal is back, whatever happens to this process in between.
 */
export interface SystemEmails {
  /**
   * Keeps the email inside `db` (the transaction that stores its token or invitation, so the
   * email is kept exactly when they are); `start` it once that transaction has committed.
   */
  keep(db: Db, input: SendEmailInput): Promise<KeptSystemEmail>;
  /** keep, in a statement of its own, then start: for a caller with nothing to commit it with */
  send(input: SendEmailInput): Promise<void>;
  /** Work after an answer that leads to a send (the reset's lookup, token and audit): close waits for it. */
  track(work: Promise<unknown>): void;
  /** Waits for tracked work and for starts in flight (close calls it before closing Temporal). */
  drain(): Promise<void>;
}

export interface KeptSystemEmail {
  /** Starts the run and drops the kept row; Temporal unreachable: the row is left to the relay. Never throws. */
  start(): Promise<void>;
}

/** Starts the run of a sealed input; an already started run for the key counts as started. */
export type SystemEmailStart = (idempotencyKey: string, sealed: string) => Promise<void>;

export interface SystemEmailDeps {
  db: Db;
  sealKey: SealKey;
  start: SystemEmailStart;
  logger: Pick<AppLogger, 'warn'>;
}

/**
 * How long a kept email is left to the process that kept it before the relay may start it too
 * (a start gives up after 5 s): only an email whose process stopped waits this long.
 */
const KEEP_LEASE_SECONDS = 30;

/** Writes the kept row of a sealed input (a second keep of one key keeps the first). */
async function keepRow(db: Db, idempotencyKey: string, sealed: string): Promise<void> {
  await db
    .insertInto('systemEmailOutbox')
    .values({ idempotencyKey, sealed, nextAttemptAt: sql<Date>`now() + ${`${KEEP_LEASE_SECONDS} seconds`}::interval` })
    .onConflict((oc) => oc.column('idempotencyKey').doNothing())
    .execute();
}

/** Gives a kept email to the relay now, with the failure that stopped its start. */
export async function deferSystemEmail(db: Db, idempotencyKey: string, error: string): Promise<void> {
  await db
    .updateTable('systemEmailOutbox')
    .set((eb) => ({ attempts: eb('attempts', '+', 1), lastError: error, nextAttemptAt: sql<Date>`now()` }))
    .where('idempotencyKey', '=', idempotencyKey)
    .execute();
}

export function createSystemEmails(deps: SystemEmailDeps): SystemEmails {
  const inFlight = new Set<Promise<unknown>>();
  const track = (work: Promise<unknown>) => {
    const settled = work.then(
      () => undefined,
      () => undefined,
    );
    inFlight.add(settled);
    void settled.then(() => inFlight.delete(settled));
  };
  const start = async (idempotencyKey: string, sealed: string): Promise<void> => {
    try {
      await deps.start(idempotencyKey, sealed);
      await deps.db.deleteFrom('systemEmailOutbox').where('idempotencyKey', '=', idempotencyKey).execute();
    } catch (error) {
      deps.logger.warn({ err: error, idempotencyKey }, 'system email: run not started; kept for the relay');
      await deferSystemEmail(deps.db, idempotencyKey, (error as Error).message).catch(() => undefined);
    }
  };
  const keep = async (db: Db, input: SendEmailInput): Promise<KeptSystemEmail> => {
    const sealed = await sealSendInput(deps.sealKey, input);
    await keepRow(db, input.idempotencyKey, sealed);
    return {
      start: () => {
        const started = start(input.idempotencyKey, sealed);
        track(started);
        return started;
      },
    };
  };
  return {
    keep,
    async send(input) {
      await (await keep(deps.db, input)).start();
    },
    track,
    async drain() {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
  };
}
