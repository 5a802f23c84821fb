import { ActivityFailure, ApplicationFailure, CancelledFailure, msToNumber, RetryState } from '@temporalio/common';
import { journeyCallsBy, type JourneyRunCalls } from '../journey-calls';
import type { JourneyRuntime } from '../workflows/journey-runtime';
import type { VirtualClock } from './virtual-clock';

interface Wait {
  test: () => boolean;
  settle: (value: boolean) => void;
  fail: (error: Error) => void;
  timer: { cancel(): void };
}

/** A journey runtime on the virtual clock, plus the two things the simulator does to a run. */
export interface VirtualRuntime extends JourneyRuntime {
  /** the run received an event: a `ctx.waitForEvent` whose condition now holds resumes */
  wake(): void;
  /** an exit rule matched: the pending timer or wait rejects, as a Temporal cancellation does */
  cancel(): void;
}

/**
 * The journey runner's engine for `waymark simulate`: timers on a shared virtual clock, calls
 * answered in process. An activity that asks to be retried later (`nextRetryDelay`, the send
 * inside `suppress.hours`) is retried at that time, as Temporal's retry policy does; any other
 * failure of a simulated call is final (the in-memory calls only fail on purpose).
 */
export function virtualRuntime(clock: VirtualClock, calls: JourneyRunCalls, ids: { workflowId: string; runId: string }): VirtualRuntime {
  const waits = new Set<Wait>();
  let cancelled = false;

  const wait = (test: () => boolean, timeoutMs: number): Promise<boolean> =>
    new Promise<boolean>((resolve, reject) => {
      if (cancelled) return reject(new CancelledFailure('Journey run cancelled'));
      if (test()) return resolve(true);
      const entry: Wait = {
        test,
        settle: (value) => {
          entry.timer.cancel();
          waits.delete(entry);
          resolve(value);
        },
        fail: (error) => {
          entry.timer.cancel();
          waits.delete(entry);
          reject(error);
        },
        timer: clock.at(clock.now() + timeoutMs, () => entry.settle(false)),
      };
      waits.add(entry);
    });

  const retried =
    <I, O>(name: string, call: (input: I) => Promise<O>) =>
    async (input: I): Promise<O> => {
      for (;;) {
        try {
          return await call(input);
        } catch (error) {
          const delay =
            error instanceof ApplicationFailure && !error.nonRetryable && error.nextRetryDelay != null ? msToNumber(error.nextRetryDelay) : undefined;
          if (delay === undefined) {
            const cause = error instanceof Error ? error : new Error(String(error));
            throw new ActivityFailure('Activity task failed', name, undefined, RetryState.NON_RETRYABLE_FAILURE, undefined, cause);
          }
          // not cancellable: the call sits in a shielded step, as on Temporal
          await new Promise<void>((resolve) => clock.at(clock.now() + delay, resolve));
        }
      }
    };

  return {
    ...ids,
    now: () => clock.now(),
    calls: journeyCallsBy((name) => retried(name, calls[name] as (input: unknown) => Promise<unknown>) as JourneyRunCalls[typeof name]),
    sleep: async (ms) => {
      await wait(() => false, ms);
    },
    condition: (test, timeoutMs) => wait(test, timeoutMs),
    shielded: (call) => call(),
    cancelled: () => cancelled,
    wake() {
      for (const entry of [...waits]) if (entry.test()) entry.settle(true);
    },
    cancel() {
      cancelled = true;
      for (const entry of [...waits]) entry.fail(new CancelledFailure('Journey run cancelled'));
    },
  };
}
