import createClient, { type Middleware } from 'openapi-fetch';
import { fetchRetrying429, retryAfterSeconds } from './retry-429';
import type { paths } from './schema';

/** An API answer other than 2xx, carrying the server's `{error}` message for the screen. */
export class ApiError extends Error {
  readonly status: number;
  /** a 429's Retry-After: when the slow-down panel lets the person try again */
  readonly retryAfterSeconds: number | undefined;
  constructor(status: number, message: string, retryAfterSeconds?: number) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  /** The error of a non-2xx answer whose body is `{error}` (or not JSON at all). */
  static of(response: Response, body: unknown): ApiError {
    const error = (body as { error?: unknown } | undefined)?.error;
    const message = typeof error === 'string' ? error : `Request failed (${response.status})`;
    return new ApiError(response.status, message, retryAfterSeconds(response));
  }
}

/** Listeners told when any call answers 401 (the session ended): the app goes to sign-in. */
const unauthorizedListeners = new Set<() => void>();
export function onUnauthorized(listener: () => void): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

const sessionExpiry: Middleware = {
  onResponse({ response, request }) {
    if (response.status === 401 && !new URL(request.url).pathname.startsWith('/api/auth/')) for (const listener of unauthorizedListeners) listener();
    return undefined;
  },
};

/** Same-origin client of the admin API, typed from /openapi.json; the session cookie rides along. */
export const api = createClient<paths>({ baseUrl: window.location.origin, credentials: 'same-origin', fetch: fetchRetrying429 });
api.use(sessionExpiry);

/** The data of an openapi-fetch result, or an ApiError with the server's message. */
export function unwrap<R extends { data?: unknown; error?: unknown; response: Response }>(result: R): NonNullable<R['data']> {
  if (result.error !== undefined || result.data === undefined) throw ApiError.of(result.response, result.error);
  return result.data as NonNullable<R['data']>;
}

/** A message for any thrown value, for error panels and toasts. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
