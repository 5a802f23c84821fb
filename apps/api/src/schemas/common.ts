import { z } from 'zod';

export { emailAddress } from '@waymark/core/contacts/email-address';

/** List conventions: limit 1–100 (default 50), offset ≥ 0. */
export const paginationQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

export const errorBody = z.object({ error: z.string() }).meta({ id: 'Error' });

/**
 * A timestamp: a Date in handlers, an ISO 8601 string on the wire. Response schemas are encoded
 * (zod codecs), so use this — never `.transform` — in response schemas.
 */
export const timestamp = z.codec(z.iso.datetime({ offset: true }), z.date(), {
  decode: (value) => new Date(value),
  encode: (date) => date.toISOString(),
});
export const nullableTimestamp = timestamp.nullable();

/** Query-string datetime filter: ISO 8601 with offset, else 400. */
export const isoDateQuery = z.iso.datetime({ offset: true }).transform((value) => new Date(value));

/** `from` / `to` filters of the list and metrics routes (ISO 8601 with an offset). */
export const dateRangeQuery = { from: isoDateQuery.optional(), to: isoDateQuery.optional() };

/** Where an event misses its catalog schema (EVENT_CATALOG_MODE=quarantine keeps it with these; docs/journeys.md). */
export const catalogViolations = z
  .array(
    z
      .object({ path: z.string().describe('the property path, e.g. `status`; `(properties)` for the whole object'), message: z.string() })
      .meta({ id: 'CatalogViolation' }),
  )
  .describe('present only on a quarantined event: stored, but it started, resumed and exited nothing');

export const booleanQuery = z.enum(['true', 'false']).transform((value) => value === 'true');

/** Standard error responses a bearer route can produce, for the OpenAPI document. */
export const bearerErrors = {
  400: errorBody,
  401: errorBody,
  403: errorBody,
  429: errorBody,
  503: errorBody,
} as const;

type Envelope<K extends string, T extends z.ZodType> = z.ZodObject<
  { [P in K]: z.ZodArray<T> } & { total: z.ZodNumber; limit: z.ZodNumber; offset: z.ZodNumber }
>;

/** Admin list response: `{<plural>: [...], total, limit, offset}`. */
export function listEnvelope<K extends string, T extends z.ZodType>(plural: K, item: T): Envelope<K, T> {
  // a computed key widens to `string` for TypeScript; the mapped type restores the literal name
  return z.object({ [plural]: z.array(item), total: z.number(), limit: z.number(), offset: z.number() }) as unknown as Envelope<K, T>;
}

/** The page a list query asked for, echoed beside the rows and the total. */
export function page<R extends { total: number }>(query: { limit: number; offset: number }, result: R): R & { limit: number; offset: number } {
  return { ...result, limit: query.limit, offset: query.offset };
}

/**
 * `.meta()` for a refine that JSON Schema can state: "at least one of these fields". The refine
 * keeps the clear message; this keeps the OpenAPI document (and any client generated from it)
 * knowing the same rule, e.g. `.refine(...).meta(requireAnyOf('userId', 'email'))`.
 */
export function requireAnyOf(...keys: string[]): { anyOf: { required: string[] }[] } {
  return { anyOf: keys.map((key) => ({ required: [key] })) };
}

/** The JSON Schema a zod schema accepts as input, for stating a rule checked elsewhere in `.meta()`. */
export function inputJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
  return json;
}

/**
 * A response that is not JSON (an HTML page, an image, Prometheus text, CSV), documented with
 * its media type; the handler sends it as is. Error answers of the same route stay `{error}` JSON.
 */
export function mediaResponse(description: string, content: Record<string, z.ZodType>) {
  return { description, content: Object.fromEntries(Object.entries(content).map(([type, schema]) => [type, { schema }])) };
}

/**
 * The characters String.prototype.trim removes, as a regex class body, so the document's pattern
 * and the server agree on what "blank" means in every regex dialect (ECMA-262, Python).
 */
const TRIMMED = '\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';

/** Text that is trimmed and must not be blank: `pattern` says "some non-space", as the trim does. */
export function text(max: number) {
  return z
    .string()
    .trim()
    .min(1)
    .max(max)
    .regex(new RegExp(`[^${TRIMMED}]`), 'must not be blank');
}
