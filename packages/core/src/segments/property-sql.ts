import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import type { SegmentPropertyCondition } from './segment-conditions';

/**
 * A journey property condition as SQL over a jsonb column, with the meaning the journey runner
 * gives it in memory (packages/journey/src/conditions.ts): `eq` is lenient between numbers,
 * booleans and their strings; `gt`…`lte` compare numbers and numeric strings as numbers, ISO dates
 * as instants, other strings as strings; a missing property passes only `neq` and `exists: false`.
 * Every branch is a CASE so a cast runs only on a value of the right JSON type.
 */

const NUMERIC = String.raw`^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$`;
const ISO_DATE = String.raw`^\d{4}-\d{2}-\d{2}`;

type Json = RawBuilder<unknown>;

/** The value at a property path: the key itself first (`a.b` may be one key), then nested objects. */
export function propertyValue(column: Expression<unknown>, property: string): Json {
  if (!property.includes('.')) return sql`(${column} -> ${property})`;
  return sql`coalesce(${column} -> ${property}, ${column} #> ${property.split('.')}::text[])`;
}

function text(value: Json): RawBuilder<string> {
  return sql`(${value} #>> '{}')`;
}

/** A number, or a string PostgreSQL reads as one (not JavaScript's `0x10` or `Infinity`, which it refuses or reads otherwise). */
function isNumeric(value: unknown): value is number | string {
  if (typeof value === 'number') return Number.isFinite(value);
  return typeof value === 'string' && new RegExp(NUMERIC).test(value);
}

/** looseEquals of the journey runner, never null. */
function equals(value: Json, expected: unknown): RawBuilder<SqlBool> {
  if (typeof expected === 'string')
    return sql`(case when jsonb_typeof(${value}) in ('string', 'number', 'boolean') then ${text(value)} = ${expected} else false end)`;
  if (typeof expected === 'number')
    return sql`(case jsonb_typeof(${value}) when 'number' then (${value})::numeric = ${String(expected)}::numeric when 'string' then ${text(value)} = ${String(expected)} else false end)`;
  if (typeof expected === 'boolean')
    return sql`(case when jsonb_typeof(${value}) in ('boolean', 'string') then ${text(value)} = ${String(expected)} else false end)`;
  return sql`coalesce(${value} = ${JSON.stringify(expected ?? null)}::jsonb, false)`;
}

const COMPARATORS = { gt: sql`>`, gte: sql`>=`, lt: sql`<`, lte: sql`<=` } as const;

function compare(value: Json, operator: keyof typeof COMPARATORS, expected: unknown): RawBuilder<SqlBool> {
  const op = COMPARATORS[operator];
  if (isNumeric(expected)) {
    return sql`coalesce((case jsonb_typeof(${value})
      when 'number' then (${value})::numeric
      when 'string' then (case when ${text(value)} ~ ${NUMERIC} then ${text(value)}::numeric end)
    end) ${op} ${String(expected)}::numeric, false)`;
  }
  if (typeof expected !== 'string') return sql<SqlBool>`false`;
  // two ISO dates compare as instants (waymark_try_timestamptz, migrations/0105_segments.ts), else as strings (code points, as JS does)
  return sql`(case when jsonb_typeof(${value}) <> 'string' then false
    when ${text(value)} ~ ${ISO_DATE} and ${expected} ~ ${ISO_DATE}
      and waymark_try_timestamptz(${text(value)}) is not null and waymark_try_timestamptz(${expected}) is not null
      then waymark_try_timestamptz(${text(value)}) ${op} waymark_try_timestamptz(${expected})
    else ${text(value)} collate "C" ${op} ${expected} collate "C" end)`;
}

export function propertyConditionSql(column: Expression<unknown>, condition: SegmentPropertyCondition): RawBuilder<SqlBool> {
  const value = propertyValue(column, condition.property);
  const expected = condition.value;
  switch (condition.operator) {
    case 'eq':
      return equals(value, expected);
    case 'neq':
      return sql`(not ${equals(value, expected)})`;
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return compare(value, condition.operator, expected);
    case 'contains':
      return sql`(case jsonb_typeof(${value})
        when 'string' then ${typeof expected === 'string' ? sql`strpos(lower(${text(value)}), lower(${expected})) > 0` : sql`false`}
        when 'array' then exists (select 1 from jsonb_array_elements(${value}) as element(item) where ${equals(sql`element.item`, expected)})
        else false end)`;
    case 'exists':
      return expected === false ? sql`(${value} is null or ${value} = 'null'::jsonb)` : sql`(${value} is not null and ${value} <> 'null'::jsonb)`;
    case 'in': {
      const items = Array.isArray(expected) ? expected : [];
      if (items.length === 0) return sql<SqlBool>`false`;
      return sql`(${sql.join(
        items.map((item) => equals(value, item)),
        sql` or `,
      )})`;
    }
  }
}
