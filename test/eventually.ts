export interface EventuallyOptions {
  /** default 20 s: long enough for a Temporal run on two busy cores, short enough to fail inside the test timeout */
  timeoutMs?: number;
  intervalMs?: number;
  /** names the condition in the timeout error */
  what?: string;
}

/**
 * Polls `read` until `done(value)` holds and returns that value. Work that happens after the request
 * answers (a Temporal run, a queued publish, a worker) can only be observed this way. A timeout throws
 * with the last value read, so a wait is itself an assertion and never lets a test pass on stale data.
 */
export async function eventually<T, U extends T>(read: () => T | Promise<T>, done: (value: T) => value is U, options?: EventuallyOptions): Promise<U>;
export async function eventually<T>(read: () => T | Promise<T>, done: (value: T) => boolean, options?: EventuallyOptions): Promise<T>;
export async function eventually<T>(read: () => T | Promise<T>, done: (value: T) => boolean, options: EventuallyOptions = {}): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${options.what ?? 'condition'}; last value ${describe(value)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 100));
  }
}

function describe(value: unknown): string {
  try {
    return JSON.stringify(value)?.slice(0, 500) ?? String(value);
  } catch {
    return String(value);
  }
}
