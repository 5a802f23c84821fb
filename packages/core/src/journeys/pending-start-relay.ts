import { relayPendingStarts, type PendingStartRelayDeps } from './pending-starts';

/** Between passes while nothing is pending: one indexed read of an (almost always) empty table. */
const IDLE_MS = 2_000;
/** First and longest wait after a pass that found the engine still down (doubling in between). */
const BACKOFF_MIN_MS = 1_000;
const BACKOFF_MAX_MS = 15_000;
const BATCH = 100;

export interface PendingStartRelay {
  /** stops the loop after the pass in flight */
  close(): Promise<void>;
}

/**
 * The loop that works off `journey_pending_starts` (pending-starts.ts). The worker runs it (one per
 * worker process; docs/operations.md says why): a full batch is followed at once by the next, an
 * engine still down by a wait that doubles from 1 s to 15 s, so an outage costs one failing start
 * per wait and the backlog starts within 15 s of the engine's return. A pass that fails itself
 * (PostgreSQL unreachable) is logged and tried again after the same backoff.
 */
export function startPendingStartRelay(deps: PendingStartRelayDeps): PendingStartRelay {
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let backoffMs = 0;
  let inFlight: Promise<void> = Promise.resolve();

  const backOff = () => {
    backoffMs = Math.min(Math.max(backoffMs * 2, BACKOFF_MIN_MS), BACKOFF_MAX_MS);
    return backoffMs;
  };

  const pass = async (): Promise<number> => {
    try {
      const outcome = await relayPendingStarts(deps, { limit: BATCH });
      if (outcome.started > 0 || outcome.parked > 0) {
        deps.logger.info({ started: outcome.started, parked: outcome.parked }, 'pending journey starts relayed');
      }
      if (outcome.unavailable) return backOff();
      backoffMs = 0;
      return outcome.claimed >= BATCH ? 0 : IDLE_MS;
    } catch (error) {
      deps.logger.warn({ err: error }, 'pending journey start relay: pass failed; retrying');
      return backOff();
    }
  };

  const schedule = (delayMs: number) => {
    if (closed) return;
    timer = setTimeout(() => {
      inFlight = pass().then(schedule);
    }, delayMs);
  };
  schedule(0);

  return {
    async close() {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      await inFlight;
    },
  };
}
