import type { AppLogger } from '../logging/logger';
import type { SendEmailInput } from './send-email';

/**
 * Waymark's own emails (password resets, invitations): each is a workflow run
 * (`system-email:<idempotency key>`) whose activity sends through the normal send path, so an api
 * restart after the start loses nothing and the ledger row is sent exactly once
 * (docs/email.md, "System emails").
 */
export interface SystemEmails {
  /** Resolves once the send is durable (its run started), or handed to the in-process fallback. */
  send(input: SendEmailInput): Promise<void>;
  /** Work after an answer that leads to a send (the reset's lookup, token and audit): close waits for it. */
  track(work: Promise<unknown>): void;
  /** Waits for tracked work and for starts in flight (close calls it before closing Temporal). */
  drain(): Promise<void>;
}

export interface SystemEmailDeps {
  /** starts the run; an already started run for the key counts as started */
  start(input: SendEmailInput): Promise<void>;
  /**
   * Temporal unreachable: the send is retried in this process instead (sendUntilSettled), so the
   * request never fails for the person; an api stopped during that outage loses it.
   */
  fallback(input: SendEmailInput): Promise<unknown>;
  logger: Pick<AppLogger, 'warn' | 'error'>;
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
  return {
    async send(input) {
      const started = deps.start(input);
      track(started);
      try {
        await started;
      } catch (error) {
        deps.logger.warn({ err: error, idempotencyKey: input.idempotencyKey }, 'system email: workflow start failed; sending from this process');
        deps
          .fallback(input)
          .catch((fallbackError: unknown) => deps.logger.error({ err: fallbackError, idempotencyKey: input.idempotencyKey }, 'system email could not be sent'));
      }
    },
    track,
    async drain() {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
  };
}
