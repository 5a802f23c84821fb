import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './schema';

/** An API answer other than 2xx, carrying the server's `{error}` message for the screen. */
export class ApiError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
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
export const api = createClient<paths>({ baseUrl: window.location.origin, credentials: 'same-origin' });
api.use(sessionExpiry);

/** The data of an openapi-fetch result, or an ApiError with the server's message. */
export function unwrap<R extends { data?: unknown; error?: unknown; response: Response }>(result: R): NonNullable<R['data']> {
  if (result.error !== undefined || result.data === undefined) {
    const body = result.error as { error?: unknown } | undefined;
    const message = typeof body?.error === 'string' ? body.error : `Request failed (${result.response.status})`;
    throw new ApiError(result.response.status, message);
  }
  return result.data as NonNullable<R['data']>;
}

/** A message for any thrown value, for error panels and toasts. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
