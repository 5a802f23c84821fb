import { TableNode, type SelectQueryBuilder } from 'kysely';
import type { Database } from './schema';

/** The page an admin list asks for (limit 1–100, offset ≥ 0: docs/ and the OpenAPI description). */
export interface PageQuery {
  limit: number;
  offset: number;
}

/** Tables whose exact row count triggers keep in `row_counts` (migration 0070), by their stored name. */
const COUNTED_TABLES: Partial<Record<keyof Database, string>> = {
  events: 'events',
  contacts: 'contacts',
  emailSends: 'email_sends',
  auditLogs: 'audit_logs',
};

/** The counted table a query reads whole (one table, no filter, join or grouping), if any. */
function wholeCountedTable(query: SelectQueryBuilder<Database, keyof Database, object>): string | undefined {
  const node = query.toOperationNode();
  if (node.where !== undefined || node.joins !== undefined || node.groupBy !== undefined || node.having !== undefined) return undefined;
  const froms = node.from?.froms ?? [];
  const from = froms[0];
  if (froms.length !== 1 || from === undefined || !TableNode.is(from) || from.table.schema !== undefined) return undefined;
  return COUNTED_TABLES[from.table.identifier.name as keyof Database];
}

/**
 * A list filter that is exactly `column = value` on a whole table whose values triggers count in
 * `filter_counts` (migration 0132: the audit log's actor, resource and action; a send's template;
 * 0140: a send's status).
 */
export interface CountedFilter {
  table: 'audit_logs' | 'email_sends';
  column: string;
  value: string;
}

/** The one filter of `query` that is set among `keys`, when exactly one is. */
export function soleFilter<K extends string>(query: Partial<Record<K, unknown>>, keys: readonly K[]): K | undefined {
  const set = keys.filter((key) => query[key] !== undefined);
  return set.length === 1 ? set[0] : undefined;
}

/**
 * How many rows a list's filter matches, exactly. A filter over a whole counted table is answered
 * from its counter (a sum over a few shard rows) instead of a count over every row, which at a
 * million rows is what made an unfiltered admin list slow (docs/scaling.md). The counter is read
 * as a scalar subquery of the filter's own query (whose first row is enough): the builder carries
 * the connection, so the callers keep passing one builder for rows and one for the count.
 */
async function countMatching(filtered: SelectQueryBuilder<Database, keyof Database, object>, counted?: CountedFilter): Promise<number> {
  if (counted !== undefined) {
    // the filter's own query finds one matching row (an index probe) or none, which means 0
    const row = await filtered
      .select((eb) =>
        eb
          .selectFrom('filterCounts')
          .select((sub) => sub.fn.sum<number>('n').as('n'))
          .where('tableName', '=', counted.table)
          .where('columnName', '=', counted.column)
          .where('value', '=', counted.value)
          .as('total'),
      )
      .limit(1)
      .executeTakeFirst();
    return Number(row?.total ?? 0);
  }
  const table = wholeCountedTable(filtered);
  if (table === undefined) {
    const count = await filtered.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow();
    return count.total;
  }
  const row = await filtered
    .select((eb) =>
      eb
        .selectFrom('rowCounts')
        .select((sub) => sub.fn.sum<number>('n').as('n'))
        .where('tableName', '=', table)
        .as('total'),
    )
    .limit(1)
    .executeTakeFirst();
  // no row: the table has no rows
  return row?.total ?? 0;
}

/** One page of a list and its exact total, fetched in parallel. */
export async function pageWithTotal<DB extends Database, TB extends keyof DB, O>(
  rows: SelectQueryBuilder<DB, TB, O>,
  total: Promise<number>,
  page: PageQuery,
): Promise<{ rows: O[]; total: number }> {
  const [items, count] = await Promise.all([rows.limit(page.limit).offset(page.offset).execute(), total]);
  return { rows: items, total: count };
}

/**
 * One page of a list and the total the same filter matches, as two statements in parallel.
 * `rows` is the filtered query with its columns and order; `filtered` is the same filter with
 * no columns (usually the builder `rows` was made from), counted, or answered from `counted`'s
 * counter when the caller knows the filter is exactly that. `DB` is wider than Database when the
 * query names a table by an alias (`contacts as c`).
 */
export async function paginate<DB extends Database, TB extends keyof DB, O, CTB extends keyof DB>(
  rows: SelectQueryBuilder<DB, TB, O>,
  filtered: SelectQueryBuilder<DB, CTB, object>,
  page: PageQuery,
  counted?: CountedFilter,
): Promise<{ rows: O[]; total: number }> {
  return pageWithTotal(rows, countMatching(filtered as unknown as SelectQueryBuilder<Database, keyof Database, object>, counted), page);
}
