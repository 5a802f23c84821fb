/**
 * The one error type that crosses layers. Core code throws it with a code from the
 * closed union below; the API's error handler maps it to an HTTP status in one place.
 */
export const errorStatus = {
  validation: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unprocessable: 422,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;
  /** machine-readable reason sent beside `error` (e.g. `INVALID_TOKEN`), for clients that branch on it */
  reason: string | undefined;
  /** sent as `Retry-After` (a 429 or 503 that knows when to come back) */
  retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.status = errorStatus[code];
    this.details = details;
  }

  withReason(reason: string): this {
    this.reason = reason;
    return this;
  }

  withRetryAfter(seconds: number): this {
    this.retryAfterSeconds = Math.max(1, Math.ceil(seconds));
    return this;
  }
}

export const badRequest = (message: string, details?: Record<string, unknown>) => new AppError('validation', message, details);
export const unauthorized = (message = 'Unauthorized') => new AppError('unauthorized', message);
export const forbidden = (message = 'Insufficient scope') => new AppError('forbidden', message);
export const notFound = (message: string) => new AppError('not_found', message);
export const conflict = (message: string) => new AppError('conflict', message);
export const unavailable = (message: string) => new AppError('unavailable', message);

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}
