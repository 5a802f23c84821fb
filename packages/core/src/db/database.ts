import { CamelCasePlugin, Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { sendMarkedByName } from './named-statements';
import type { Database } from './schema';
import type { ScopedTransactions } from './scoped-transactions';
import { traceContextDialect } from './trace-context-dialect';

// Return int8 (count(*), sums) as JS numbers: the counts this service returns stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
// numeric (avg, ratios) as numbers too.
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value) => Number(value));

export type Db = Kysely<Database>;

export interface DatabaseOptions {
  connectionString: string;
  max?: number;
  applicationName?: string;
  /** connection errors of idle and checked-out clients (e.g. PostgreSQL restarted); without a listener pg would crash the process */
  onIdleClientError?: (error: Error) => void;
  /** lets a unit of work (scoped-transactions.ts) run this database's statements in one transaction */
  scoped?: ScopedTransactions;
  /**
   * with tracing on: each statement carries the active span's trace to the triggers, so the
   * outbound events they write keep it (trace-context-dialect.ts); off, statements go as they are
   */
  traceContext?: boolean;
}

export function createDatabase(options: DatabaseOptions): Db {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max ?? 20,
    application_name: options.applicationName ?? 'waymark',
    // fail fast when the database is down instead of queueing requests forever. A refused
    // connection (server stopped or killed) fails at once and answers 503; this bound is for an
    // unreachable host and for the wait for a free client under overload. 1.5 s was tried and
    // turned overload on a busy 2-core box into 503s (docs/scaling.md, outages).
    connectionTimeoutMillis: 5_000,
    // pg's default closes a connection after 10 s idle, so each burst (a stall on a busy box, a
    // broadcast chunk) opened up to a dozen anew: a backend forked, SCRAM on both sides, its
    // catalog caches and named statements (named-statements.ts) built again. At 10 journey emails
    // a second that was ~26 worker and ~10 api connections per 300 events (bench/HISTORY.md,
    // "Worker CPU per journey email"); a minute keeps a burst's connections for the next one.
    idleTimeoutMillis: 60_000,
  });
  // a statement marked NAMED_STATEMENT goes by name (named-statements.ts)
  pool.on('connect', sendMarkedByName);
  const onClientError = options.onIdleClientError;
  if (onClientError !== undefined) {
    pool.on('error', onClientError);
    // pg takes the pool's listener off a client while it is checked out: a connection that drops
    // between two statements of a transaction would then emit 'error' with no listener and end
    // the process (the statement in flight, if any, still fails on its own)
    pool.on('connect', (client) => client.on('error', onClientError));
  }
  // maintainNestedObjectKeys: jsonb values (contact/event properties) come back exactly as stored;
  // without it the plugin camel-cases keys inside them (`first_name` would read as `firstName`).
  const postgres = new PostgresDialect({ pool });
  const dialect = options.traceContext === true ? traceContextDialect(postgres) : postgres;
  return new Kysely<Database>({ dialect: options.scoped?.dialect(dialect) ?? dialect, plugins: [new CamelCasePlugin({ maintainNestedObjectKeys: true })] });
}
