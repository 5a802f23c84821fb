import { createHash } from 'node:crypto';
import { CompiledQuery, sql, type Compilable, type Kysely } from 'kysely';
import type pg from 'pg';
import type { Database } from './schema';

const MARK = '/* named */';

/**
 * Put first in a statement (`sql\`${NAMED_STATEMENT} with ...\``) to have it sent as a named
 * prepared statement: each connection parses it once, and once PostgreSQL has planned it five times
 * it keeps a generic plan if that costs no more than the custom ones (plan_cache_mode `auto`), so
 * later executions only bind and execute. For the statements of the hot paths, whose parsing and
 * planning cost as much as their execution or more: the ingest store statement of one event
 * (events/ingest-batch.ts), a dozen CTEs planned in about 0.9 ms and run in about 0.5 ms, and every
 * statement a journey email runs in the worker (entry, send, claim, sent record, steps: their
 * planning took 3.4 ms of PostgreSQL's CPU per email, 0.4 ms by name; bench/HISTORY.md). It runs
 * through `Db` like any other statement (inside a unit of work, in the unit's transaction).
 * `runNamed` does the same for a query-builder statement.
 *
 * Two rules for a marked statement:
 * - Its text must not carry values (those go in parameters), nor take a new shape with them (an
 *   IN-list or VALUES list as long as the input): its name is a digest of its text, so each shape
 *   is a statement of its own, prepared anew (`= any($1)`, `unnest($1)` keep one shape; an
 *   optional part present or not makes two, which is fine).
 * - It must not return `*`: a prepared statement's result columns are fixed, and once a migration
 *   adds a column to the table, PostgreSQL refuses to run it again on that connection ("cached
 *   plan must not change result type") while an older process keeps running. Name the columns.
 */
export const NAMED_STATEMENT = sql.raw(`${MARK} `);

/**
 * Runs a query-builder statement (`db.selectFrom(...)`, `insertInto`, `updateTable`, ...) by name,
 * as NAMED_STATEMENT runs a raw one, through `db` (so in a unit of work's transaction, and with
 * its plugins' result mapping): its rows. The same two rules hold.
 */
export async function runNamed<Row>(db: Pick<Kysely<Database>, 'executeQuery'>, query: Compilable<Row>): Promise<Row[]> {
  const compiled = query.compile();
  const { rows } = await db.executeQuery<Row>(CompiledQuery.raw(`${MARK} ${compiled.sql}`, [...compiled.parameters]));
  return rows;
}

type Query = (...args: unknown[]) => unknown;

/** Makes `client` send a marked text (NAMED_STATEMENT) by name; every other query goes as it came. */
export function sendMarkedByName(client: pg.ClientBase): void {
  const query = client.query.bind(client) as Query;
  const byName: Query = (...args) => {
    const [text, values, ...rest] = args;
    if (typeof text !== 'string' || !text.startsWith(MARK) || !Array.isArray(values)) return query(...args);
    return query({ name: statementName(text), text, values }, ...rest);
  };
  client.query = byName as typeof client.query;
}

function statementName(text: string): string {
  return `waymark_${createHash('sha1').update(text).digest('hex')}`;
}
