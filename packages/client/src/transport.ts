import { WaymarkError } from './waymark-error.js';

export interface Transport {
  baseUrl: string;
  apiKey: string;
  /** per attempt */
  timeoutMs: number;
  /** attempts after the first, on a 429, a 5xx, a network error or a timeout */
  retries: number;
  fetch: typeof fetch;
}

export interface RequestOptions {
  /** one key per logical call, sent on every attempt (default: a random UUID); reuse your own (an order id) to make a repeat a no-op */
  idempotencyKey?: string;
  /** cancels the call, retries and waits included */
  signal?: AbortSignal;
}

const FIRST_DELAY_MS = 250;
const MAX_DELAY_MS = 10_000;

/** Exponential backoff with jitter (half fixed, half random), so clients retrying after a deploy do not come back in step. */
function backoff(attempt: number): number {
  const delay = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** (attempt - 1));
  return delay / 2 + Math.random() * (delay / 2);
}

/** `Retry-After` in seconds or as an HTTP date, in milliseconds from now. */
function retryAfter(response: Response): number | undefined {
  const header = response.headers.get('retry-after');
  if (header === null || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

const retryable = (status: number) => status === 429 || status >= 500;

async function errorMessage(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: unknown };
    if (typeof body.error === 'string') return body.error;
  } catch {
    // not the api's JSON (a proxy's page): the status says what there is to say
  }
  return `HTTP ${response.status}${response.statusText === '' ? '' : ` ${response.statusText}`}`;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * POSTs `body` as JSON and returns the parsed answer. Every attempt carries the same
 * Idempotency-Key, so a retry after a lost answer is stored or sent once by the api.
 */
export async function post<T>(transport: Transport, path: string, body: unknown, options: RequestOptions = {}): Promise<T> {
  const idempotencyKey = options.idempotencyKey ?? crypto.randomUUID();
  const url = `${transport.baseUrl.replace(/\/+$/, '')}${path}`;
  const payload = JSON.stringify(body);
  const cancelled = (attempts: number, cause: unknown) => new WaymarkError('The call was cancelled', { attempts, cause });
  for (let attempt = 1; ; attempt++) {
    const timeout = AbortSignal.timeout(transport.timeoutMs);
    let failure: WaymarkError;
    let wait: number | undefined;
    try {
      const response = await transport.fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${transport.apiKey}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
        body: payload,
        signal: options.signal === undefined ? timeout : AbortSignal.any([options.signal, timeout]),
      });
      if (response.ok) return (await response.json()) as T;
      failure = new WaymarkError(await errorMessage(response), { status: response.status, attempts: attempt });
      if (!retryable(response.status)) throw failure;
      wait = retryAfter(response);
    } catch (error) {
      if (error instanceof WaymarkError) throw error;
      if (options.signal?.aborted === true) throw cancelled(attempt, error);
      const timedOut = timeout.aborted;
      failure = new WaymarkError(timedOut ? `No answer within ${transport.timeoutMs} ms` : `The request failed: ${(error as Error).message}`, {
        attempts: attempt,
        cause: error,
      });
    }
    if (attempt > transport.retries) throw failure;
    try {
      await sleep(wait ?? backoff(attempt), options.signal);
    } catch (error) {
      throw cancelled(attempt, error);
    }
  }
}
