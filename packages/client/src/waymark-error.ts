/**
 * The one error the client throws: the api's answer (`status` and its `{error}` message) or, with
 * no answer at all (the network failed, the timeout passed), `status` undefined.
 */
export class WaymarkError extends Error {
  override readonly name = 'WaymarkError';
  /** the HTTP status of the last answer; undefined when there was none */
  readonly status: number | undefined;
  /** how many requests were made, retries included */
  readonly attempts: number;

  constructor(message: string, options: { status?: number; attempts: number; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = options.status;
    this.attempts = options.attempts;
  }
}
