import { z } from 'zod';

/** Scopes (README.md, Authentication and limits): read ⊂ journey-admin ⊂ full-admin; ingest is orthogonal and implied only by full-admin. */
export const scopeSchema = z.enum(['read', 'journey-admin', 'full-admin', 'ingest']);
export type Scope = z.infer<typeof scopeSchema>;

const satisfiedBy: Record<Scope, readonly Scope[]> = {
  read: ['read', 'journey-admin', 'full-admin'],
  'journey-admin': ['journey-admin', 'full-admin'],
  'full-admin': ['full-admin'],
  ingest: ['ingest', 'full-admin'],
};

export function hasScope(granted: readonly Scope[], required: Scope): boolean {
  return satisfiedBy[required].some((scope) => granted.includes(scope));
}

/** Narrows stored strings to known scopes; unknown values (from a future version) grant nothing. */
export function parseScopes(values: readonly string[]): Scope[] {
  return values.filter((value): value is Scope => scopeSchema.safeParse(value).success);
}
