/** A PostgreSQL unique violation (23505) on `constraint`: a conflict the caller answers, not a failure. */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  const pgError = error as { code?: string; constraint?: string };
  return pgError.code === '23505' && pgError.constraint === constraint;
}

/**
 * PostgreSQL aborted the statement to break a lock cycle (40P01) or a serialization conflict
 * (40001): it was rolled back whole, nothing of it was written, and the same request may simply
 * be made again. Rare (two writers locking a person's rows in opposite orders), never the input's fault.
 */
export function isTransientConflict(error: unknown): boolean {
  const pgError = error as { code?: unknown; severity?: unknown };
  return typeof pgError.severity === 'string' && (pgError.code === '40P01' || pgError.code === '40001');
}
