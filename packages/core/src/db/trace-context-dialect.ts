import { CompiledQuery, type DatabaseConnection, type Dialect, type Driver, type QueryCompiler, type QueryResult, type TransactionSettings } from 'kysely';
import { currentTraceparent } from '../logging/trace-context';

/** The session setting the outbox's `trace_context` default reads (migrations/0265_outbound_event_trace_context.ts). */
export const TRACE_CONTEXT_SETTING = 'waymark.trace_context';

/** Transaction control: it writes no row, so it needs no trace; a rollback undoes a setting made inside what it ends. */
const CONTROL = /^\s*(begin|start transaction|commit|end|rollback|savepoint|release)\b/i;
const ROLLBACK = /^\s*rollback\b/i;

/**
 * With tracing on (docs/operations.md, "Tracing"), the database's triggers see the trace of the
 * work that sends each statement: before a statement, the connection's session setting
 * `waymark.trace_context` is made the `traceparent` of the span active then ('' outside any span),
 * so an outbound event a trigger writes keeps the trace of the request or activity whose change it
 * reports, and its webhook deliveries continue it. Triggers cannot see the application's context,
 * and a setting covers every write path without threading a trace through each of them.
 *
 * The setting is sent only when it changes on the connection, one round trip then: the statements
 * of one request or activity on its connection pay it once. A rollback may undo a setting made in
 * what it ends, so after one the next statement sets it again. Built only with tracing on
 * (database.ts): with tracing off there is no wrapper and no setting at all.
 */
export function traceContextDialect(inner: Dialect): Dialect {
  return {
    createAdapter: () => inner.createAdapter(),
    createDriver: () => new TraceContextDriver(inner.createDriver()),
    createQueryCompiler: () => inner.createQueryCompiler(),
    createIntrospector: (db) => inner.createIntrospector(db),
  };
}

class TracedConnection implements DatabaseConnection {
  /** the setting as this session holds it; undefined when a rollback may have undone it */
  private held: string | undefined = '';

  constructor(readonly inner: DatabaseConnection) {}

  forget(): void {
    this.held = undefined;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (CONTROL.test(query.sql)) {
      try {
        return await this.inner.executeQuery<R>(query);
      } finally {
        if (ROLLBACK.test(query.sql)) this.forget();
      }
    }
    await this.carryTrace();
    return this.inner.executeQuery<R>(query);
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize: number): AsyncIterableIterator<QueryResult<R>> {
    await this.carryTrace();
    yield* this.inner.streamQuery<R>(query, chunkSize);
  }

  private async carryTrace(): Promise<void> {
    const traceparent = currentTraceparent() ?? '';
    if (traceparent === this.held) return;
    // a session setting, not a transaction-local one: a statement in autocommit (the ingest's one
    // statement) has no transaction to set it in beforehand
    await this.inner.executeQuery(CompiledQuery.raw(`select set_config('${TRACE_CONTEXT_SETTING}', $1, false)`, [traceparent]));
    this.held = traceparent;
  }
}

class TraceContextDriver implements Driver {
  /** one wrapper per connection of the inner driver, which keeps one object per pooled client */
  private readonly wrappers = new WeakMap<DatabaseConnection, TracedConnection>();

  constructor(private readonly inner: Driver) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await this.inner.acquireConnection();
    let wrapper = this.wrappers.get(connection);
    if (wrapper === undefined) {
      wrapper = new TracedConnection(connection);
      this.wrappers.set(connection, wrapper);
    }
    return wrapper;
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.inner.beginTransaction(unwrap(connection), settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(unwrap(connection));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await this.inner.rollbackTransaction(unwrap(connection));
    } finally {
      (connection as TracedConnection).forget();
    }
  }

  savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    return savepointsOf(this.inner).savepoint(unwrap(connection), name, compile);
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    try {
      await savepointsOf(this.inner).rollbackToSavepoint(unwrap(connection), name, compile);
    } finally {
      (connection as TracedConnection).forget();
    }
  }

  releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    return savepointsOf(this.inner).releaseSavepoint(unwrap(connection), name, compile);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(unwrap(connection));
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

function unwrap(connection: DatabaseConnection): DatabaseConnection {
  return (connection as TracedConnection).inner;
}

/** PostgreSQL's driver has savepoints; a driver without them cannot be wrapped as one that has. */
function savepointsOf(driver: Driver): Required<Pick<Driver, 'savepoint' | 'rollbackToSavepoint' | 'releaseSavepoint'>> {
  const { savepoint, rollbackToSavepoint, releaseSavepoint } = driver;
  if (savepoint === undefined || rollbackToSavepoint === undefined || releaseSavepoint === undefined) {
    throw new Error('trace context: the database driver has no savepoints');
  }
  return {
    savepoint: savepoint.bind(driver),
    rollbackToSavepoint: rollbackToSavepoint.bind(driver),
    releaseSavepoint: releaseSavepoint.bind(driver),
  };
}
