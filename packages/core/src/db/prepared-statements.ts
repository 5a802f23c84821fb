import pg from 'pg';

/** A statement sent by name: each connection parses and plans it once, then only binds and executes. */
export interface PreparedStatement<Row> {
  name: string;
  text: string;
  /** only carries the row type */
  readonly row?: Row;
}

export function preparedStatement<Row>(name: string, text: string): PreparedStatement<Row> {
  return { name, text };
}

export interface PreparedStatementPool {
  run<Row>(statement: PreparedStatement<Row>, values: readonly unknown[]): Promise<Row[]>;
  close(): Promise<void>;
}

/**
 * A small pool of its own for the hottest writes (tracking clicks and opens). Its connections
 * use generic plans: PostgreSQL otherwise re-plans a parameterised statement on every execution
 * when its custom plan looks cheaper, and planning the click statement costs as much as running
 * it. Only statements written for this pool run here (their plans do not depend on the values),
 * and being separate, a burst of clicks never waits behind the main pool's admin queries.
 */
export function createPreparedStatementPool(options: {
  connectionString: string;
  max?: number;
  applicationName?: string;
  onIdleClientError?: (error: Error) => void;
}): PreparedStatementPool {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max ?? 2,
    application_name: options.applicationName ?? 'waymark',
    options: '-c plan_cache_mode=force_generic_plan',
    connectionTimeoutMillis: 5_000,
  });
  const onClientError = options.onIdleClientError;
  if (onClientError !== undefined) {
    pool.on('error', onClientError);
    // pg takes the pool's listener off a client while it is checked out: a connection that drops
    // between two statements of a transaction would then emit 'error' with no listener and end
    // the process (the statement in flight, if any, still fails on its own)
    pool.on('connect', (client) => client.on('error', onClientError));
  }
  return {
    async run<Row>(statement: PreparedStatement<Row>, values: readonly unknown[]) {
      const result = await pool.query<Row & pg.QueryResultRow>({ name: statement.name, text: statement.text, values: [...values] });
      return result.rows;
    },
    close: () => pool.end(),
  };
}
