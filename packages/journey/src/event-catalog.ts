// type-only: the workflow bundle must not load zod (journeys import this package; docs/scaling.md, worker memory)
import type { z } from 'zod';

/** An event's properties schema: an object of (mostly) JSON primitives, as journeys see them. */
export type EventSchema = z.ZodObject;

export type EventSchemas = Record<string, EventSchema>;

/** The properties of event `E` of a catalog, as journeys read them. */
export type EventProperties<C extends EventSchemas, E extends keyof C> = z.output<C[E]>;

/** One way a catalogued event's properties miss their schema: the property path and the schema's message. */
export interface CatalogViolation {
  path: string;
  message: string;
}

/** A failed check names its first violation (path, message) and lists every one. */
export type EventCheck = { ok: true } | { ok: false; path: string; message: string; violations: CatalogViolation[] };

/** The events this deployment knows, with their properties schemas (docs/journeys.md#typed-events). */
export interface EventCatalog<C extends EventSchemas = EventSchemas> {
  readonly schemas: C;
  names(): string[];
  has(name: string): boolean;
  /** Checks a catalogued event's properties; an uncatalogued event always passes. */
  check(name: string, properties: Record<string, unknown>): EventCheck;
  /** The properties schema of a catalogued event as JSON Schema, or undefined. */
  jsonSchema(name: string): Record<string, unknown> | undefined;
}

/**
 * Declares the event catalog: `defineEvents({ 'user.signed_up': z.object({ plan: z.enum(['free', 'pro']) }) })`.
 * Journeys declared through `defineTypedJourney` take their trigger and exit event names,
 * their `where` keys and values, and `ctx.trigger.properties` from it; the ingest pipeline
 * quarantines, refuses or lets through a catalogued event whose properties do not match, as
 * EVENT_CATALOG_MODE says (docs/journeys.md, "Catalog violations").
 */
export function defineEvents<const C extends EventSchemas>(schemas: C): EventCatalog<C> {
  const known = new Map(Object.entries(schemas));
  return {
    schemas,
    names: () => [...known.keys()],
    has: (name) => known.has(name),
    check(name, properties) {
      const schema = known.get(name);
      if (schema === undefined) return { ok: true };
      const parsed = schema.safeParse(properties);
      if (parsed.success) return { ok: true };
      const violations = parsed.error.issues.map((issue) => ({
        path: issue.path.length === 0 ? '(properties)' : issue.path.map(String).join('.'),
        message: issue.message,
      }));
      return { ok: false, ...violations[0]!, violations };
    },
    jsonSchema(name) {
      const schema = known.get(name);
      return schema === undefined ? undefined : (schema.toJSONSchema({ io: 'input', unrepresentable: 'any' }) as Record<string, unknown>);
    },
  };
}
