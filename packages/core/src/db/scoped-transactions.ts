import { AsyncLocalStorage } from 'node:async_hooks';
import { CompiledQuery, type DatabaseConnection, type Dialect, type Driver, type QueryResult, type TransactionSettings } from 'kysely';

/**
 * A unit of work: every statement run in its async scope, through any code that holds the `Db`,
 * goes on one connection inside one transaction, which the unit's owner commits or rolls back as
 * a whole. What writes the audit row of an admin change uses it (apps/api/src/plugins/audit-trail.ts):
 * the change and its row commit together, or neither does (docs/architecture.md).
 *
 * - The transaction begins at the unit's first statement (a unit that runs none costs nothing).
 * - A `db.transaction()` inside becomes a savepoint; one at a time (they queue), as on any one
 *   connection. A statement outside them gets a savepoint of its own, so a failed statement that
 *   its caller handles (a unique violation answered 409) does not abort the unit, as it would not
 *   have aborted anything in autocommit.
 * - `settle()` commits early: called before an effect outside PostgreSQL that reads what the unit
 *   wrote (a workflow start, a provider call), so the effect never sees uncommitted rows and never
 *   happens for a change that is then undone. What runs after it runs in autocommit again.
 */
export interface Unit {
  /** runs `beforeCommit` (in the unit), then commits; a failure rolls everything back and is thrown */
  commit(): Promise<void>;
  rollback(): Promise<void>;
  /** whether it has committed or rolled back (then statements go to the pool as usual) */
  readonly closed: boolean;
  /** whether `settle()` committed it early */
  readonly settled: boolean;
  /** the last statements of the unit, before its commit (the audit row) */
  beforeCommit?: () => Promise<void>;
}

export interface ScopedTransactions {
  /** the dialect the `Db` is built with, so its statements can join a unit */
  dialect(inner: Dialect): Dialect;
  begin(): Unit;
  run<T>(unit: Unit, work: () => T): T;
  /** Commits the current unit, if any, before an effect outside PostgreSQL (see Unit). */
  settle(): Promise<void>;
  /**
   * Runs `work` once the current unit has committed (at once outside a unit), outside the unit's
   * scope; dropped if the unit rolls back. For work handed to the background that reads what the
   * unit wrote (an event's outbox rows): run inside the unit, it would not see them yet, and its
   * own statements and settles would interleave with the handler's on the unit's one connection.
   */
  afterCommit(work: () => void): void;
}

/** One connection's worth of serialisation: whoever holds it runs alone on the unit's connection. */
class Turn {
  private tail: Promise<void> = Promise.resolve();
  async take(): Promise<() => void> {
    let release!: () => void;
    const next = new Promise<void>((resolve) => (release = resolve));
    const previous = this.tail;
    this.tail = previous.then(() => next);
    await previous;
    return release;
  }
}

const raw = (query: string) => CompiledQuery.raw(query);

class UnitState implements Unit {
  closed = false;
  settled = false;
  beforeCommit?: () => Promise<void>;
  readonly turn = new Turn();
  private connection?: Promise<DatabaseConnection>;
  private savepoints = 0;
  readonly committed: (() => void)[] = [];

  constructor(
    private readonly driver: () => Driver,
    private readonly storage: AsyncLocalStorage<UnitState>,
  ) {}

  /** the unit's connection, in its transaction (begun on first use) */
  async open(): Promise<DatabaseConnection> {
    this.connection ??= (async () => {
      const connection = await this.driver().acquireConnection();
      try {
        await connection.executeQuery(raw('begin'));
      } catch (error) {
        await this.driver().releaseConnection(connection);
        throw error;
      }
      return connection;
    })();
    return this.connection;
  }

  nextSavepoint(): string {
    return `unit_${++this.savepoints}`;
  }

  async commit(): Promise<void> {
    if (this.closed) return;
    try {
      if (this.beforeCommit !== undefined) await this.storage.run(this, this.beforeCommit);
    } catch (error) {
      await this.rollback();
      throw error;
    }
    await this.end('commit');
    for (const work of this.committed.splice(0)) this.storage.exit(work);
  }

  async rollback(): Promise<void> {
    if (this.closed) return;
    await this.end('rollback');
  }

  private async end(statement: 'commit' | 'rollback'): Promise<void> {
    this.closed = true;
    if (statement === 'rollback') this.committed.length = 0;
    if (this.connection === undefined) return;
    const connection = await this.connection;
    try {
      await connection.executeQuery(raw(statement));
    } finally {
      await this.driver().releaseConnection(connection);
    }
  }
}

/**
 * What Kysely gets from `acquireConnection` inside a unit: the unit's connection, seen through
 * one handle per acquisition, so a transaction Kysely runs on the handle knows its statements
 * from the unit's other ones.
 */
class UnitHandle implements DatabaseConnection {
  /** set while a `db.transaction()` runs on this handle: its savepoint and the turn it holds */
  transaction?: { savepoint: string; release: () => void };

  constructor(
    readonly unit: UnitState,
    private readonly connection: DatabaseConnection,
  ) {}

  /** straight to the connection: for whoever holds the unit's turn */
  direct<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.connection.executeQuery<R>(query);
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.transaction !== undefined) return this.connection.executeQuery<R>(query);
    const release = await this.unit.turn.take();
    const savepoint = this.unit.nextSavepoint();
    try {
      await this.connection.executeQuery(raw(`savepoint ${savepoint}`));
      try {
        const result = await this.connection.executeQuery<R>(query);
        await this.connection.executeQuery(raw(`release savepoint ${savepoint}`));
        return result;
      } catch (error) {
        await this.connection.executeQuery(raw(`rollback to savepoint ${savepoint}`));
        throw error;
      }
    } finally {
      release();
    }
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize: number): AsyncIterableIterator<QueryResult<R>> {
    const release = this.transaction === undefined ? await this.unit.turn.take() : () => undefined;
    try {
      yield* this.connection.streamQuery<R>(query, chunkSize);
    } finally {
      release();
    }
  }
}

class ScopedDriver implements Driver {
  constructor(
    private readonly inner: Driver,
    private readonly storage: AsyncLocalStorage<UnitState>,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const unit = this.storage.getStore();
    if (unit === undefined || unit.closed) return this.inner.acquireConnection();
    return new UnitHandle(unit, await unit.open());
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    if (!(connection instanceof UnitHandle)) return this.inner.beginTransaction(connection, settings);
    const release = await connection.unit.turn.take();
    const savepoint = connection.unit.nextSavepoint();
    try {
      await connection.direct(raw(`savepoint ${savepoint}`));
    } catch (error) {
      release();
      throw error;
    }
    connection.transaction = { savepoint, release };
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    if (!(connection instanceof UnitHandle)) return this.inner.commitTransaction(connection);
    await this.endTransaction(connection, (savepoint) => `release savepoint ${savepoint}`);
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (!(connection instanceof UnitHandle)) return this.inner.rollbackTransaction(connection);
    await this.endTransaction(connection, (savepoint) => `rollback to savepoint ${savepoint}`);
  }

  private async endTransaction(handle: UnitHandle, statement: (savepoint: string) => string): Promise<void> {
    const transaction = handle.transaction;
    if (transaction === undefined) return;
    try {
      await handle.direct(raw(statement(transaction.savepoint)));
    } finally {
      handle.transaction = undefined;
      transaction.release();
    }
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    // the unit's connection goes back to the pool when the unit ends
    if (!(connection instanceof UnitHandle)) await this.inner.releaseConnection(connection);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

export function createScopedTransactions(): ScopedTransactions {
  const storage = new AsyncLocalStorage<UnitState>();
  let driver: Driver | undefined;
  const innerDriver = () => {
    if (driver === undefined) throw new Error('scoped transactions: no database was built with this dialect');
    return driver;
  };
  return {
    dialect(inner) {
      return {
        createAdapter: () => inner.createAdapter(),
        createDriver: () => {
          driver = inner.createDriver();
          return new ScopedDriver(driver, storage);
        },
        createQueryCompiler: () => inner.createQueryCompiler(),
        createIntrospector: (db) => inner.createIntrospector(db),
      };
    },
    begin: () => new UnitState(innerDriver, storage),
    run: (unit, work) => storage.run(unit as UnitState, work),
    async settle() {
      const unit = storage.getStore();
      if (unit === undefined || unit.closed) return;
      await unit.commit();
      unit.settled = true;
    },
    afterCommit(work) {
      const unit = storage.getStore();
      if (unit === undefined || unit.closed) work();
      else unit.committed.push(work);
    },
  };
}

/**
 * `port` with `settle()` before each of its methods: for ports whose calls are effects outside
 * PostgreSQL that may read what the unit wrote (workflow starts and signals, provider sends).
 * Every method of such a port is async already.
 */
export function settleBefore<T extends object>(transactions: Pick<ScopedTransactions, 'settle'>, port: T): T {
  return new Proxy(port, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        await transactions.settle();
        return (value as (...args: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}
