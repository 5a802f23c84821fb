/** A PostgreSQL unique violation (23505) on `constraint`: a conflict the caller answers, not a failure. */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  const pgError = error as { code?: string; constraint?: string };
  return pgError.code === '23505' && pgError.constraint === constraint;
}
