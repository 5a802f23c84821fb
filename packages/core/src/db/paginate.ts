import type { SelectQueryBuilder } from 'kysely';
import type { Database } from './schema';

/** The page an admin list asks for (limit 1–100, offset ≥ 0: docs/ and the OpenAPI description). */
export interface PageQuery {
  limit: number;
  offset: number;
}

/**
 * One page of a list and the total the same filter matches, as two statements in parallel.
 * `rows` is the filtered query with its columns and order; `filtered` is the same filter with
 * no columns (usually the builder `rows` was made from), counted.
 */
export async function paginate<TB extends keyof Database, O, CTB extends keyof Database>(
  rows: SelectQueryBuilder<Database, TB, O>,
  filtered: SelectQueryBuilder<Database, CTB, object>,
  page: PageQuery,
): Promise<{ rows: O[]; total: number }> {
  const [items, count] = await Promise.all([
    rows.limit(page.limit).offset(page.offset).execute(),
    filtered.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows: items, total: count.total };
}
