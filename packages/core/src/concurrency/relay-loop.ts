/** First and longest wait after a pass that found its target still down (doubling in between). */
const BACKOFF_MIN_MS = 1_000;
const BACKOFF_MAX_MS = 15_000;

export interface RelayLoop {
  /** stops the loop after the pass in flight */
  close(): Promise<void>;
}

/**
 * The loop of an outbox relay (events/effect-relay.ts, emails/system-email-relay.ts): `pass`
 * returns how long to wait before the next one, or 'backoff' when what it hands work to (Temporal)
 * is still down or the pass failed; then the waits double from 1 s to 15 s, so an outage costs one
 * failing call per wait and the backlog goes within 15 s of the return.
 */
export function startRelayLoop(pass: () => Promise<number | 'backoff'>): RelayLoop {
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let backoffMs = 0;
  let inFlight: Promise<void> = Promise.resolve();
  const next = (outcome: number | 'backoff') => {
    if (outcome !== 'backoff') {
      backoffMs = 0;
      return outcome;
    }
    backoffMs = Math.min(Math.max(backoffMs * 2, BACKOFF_MIN_MS), BACKOFF_MAX_MS);
    return backoffMs;
  };
  const schedule = (delayMs: number) => {
    if (closed) return;
    timer = setTimeout(() => {
      inFlight = pass().then((outcome) => schedule(next(outcome)));
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
