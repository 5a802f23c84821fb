import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type pg from 'pg';

const MARK = '/* named */';

/**
 * Put first in a statement (`sql\`${NAMED_STATEMENT} with ...\``) to have it sent as a named
 * prepared statement: each connection parses it once, and once PostgreSQL has planned it five times
 * it keeps a generic plan if that costs no more than the custom ones (plan_cache_mode `auto`), so
 * later executions only bind and execute. For a hot statement whose planning costs as much as its
 * execution: the ingest store statement of one event (events/ingest-batch.ts), a dozen CTEs planned
 * in about 0.9 ms and run in about 0.5 ms. It runs through `Db` like any other statement (inside a
 * unit of work, in the unit's transaction). Its name is a digest of its text, so each shape of a
 * statement built in parts is a statement of its own: mark only statements whose text does not
 * carry values (those go in parameters), or every execution would prepare a new one.
 */
export const NAMED_STATEMENT = sql.raw(`${MARK} `);

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
