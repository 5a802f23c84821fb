import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/config';
import { integrationEnv } from '../../../../test/test-env';
import { createDatabase, type Db } from './database';
import { NAMED_STATEMENT, runNamed } from './named-statements';
import { createScopedTransactions } from './scoped-transactions';

/** Marked statements (named-statements.ts) on real connections: sent by name, planned once per connection, inside a unit of work too. */
describe('statements sent by name (real PostgreSQL)', () => {
  const config = loadConfig(integrationEnv());
  const transactions = createScopedTransactions();
  // one connection each: the session that prepared a statement is the one asked about it
  const db = createDatabase({ connectionString: config.databaseUrl, max: 1, applicationName: 'waymark-test-named', scoped: transactions });
  const other = createDatabase({ connectionString: config.databaseUrl, max: 1, applicationName: 'waymark-test-named-other' });
  afterAll(async () => {
    await db.destroy();
    await other.destroy();
  });

  const prepared = async (on: Db, like: string) =>
    (
      await sql<{ statement: string; generic: number; custom: number }>`
        select statement, generic_plans as generic, custom_plans as custom from pg_prepared_statements
        where statement like '/* named */%' and statement like ${like}`.execute(on)
    ).rows;
  const contact = (on: Db, externalId: string) => on.selectFrom('contacts').select(['externalId', 'lastSeenAt']).where('externalId', '=', externalId);

  it('runs a query-builder statement by name, with its rows mapped as any other, and plans it only a few times', async () => {
    const externalId = `named-${randomUUID()}`;
    await other
      .insertInto('contacts')
      .values({ externalId, email: `${externalId}@example.com`, properties: '{}' })
      .execute();
    const runs = 8;
    for (let n = 0; n < runs; n += 1) {
      const rows = await runNamed(db, contact(db, externalId));
      // the plugins map the result as for an unnamed statement (lastSeenAt, not last_seen_at)
      expect(rows).toEqual([{ externalId, lastSeenAt: expect.any(Date) }]);
    }
    const [statement, ...more] = await prepared(db, '%from "contacts"%');
    expect(more).toEqual([]);
    expect(statement!.statement).toContain('"external_id" = $1');
    expect(statement!.generic + statement!.custom).toBe(runs);
    // PostgreSQL plans the first five anew, then keeps its generic plan
    expect(statement!.generic).toBeGreaterThanOrEqual(runs - 5);
  });

  it("joins a unit of work's transaction: undone with it, and committed with it", async () => {
    const insert = (externalId: string) =>
      runNamed(
        db,
        db
          .insertInto('contacts')
          .values({ externalId, email: `${externalId}@example.com`, properties: '{}' })
          .returning('externalId'),
      );
    const undone = `named-undone-${randomUUID()}`;
    const unit = transactions.begin();
    expect(await transactions.run(unit, () => insert(undone))).toEqual([{ externalId: undone }]);
    // not committed yet: another connection does not see it
    expect(await contact(other, undone).execute()).toEqual([]);
    await unit.rollback();
    expect(await contact(other, undone).execute()).toEqual([]);

    const kept = `named-kept-${randomUUID()}`;
    const second = transactions.begin();
    await transactions.run(second, () => insert(kept));
    expect(await contact(other, kept).execute()).toEqual([]);
    await second.commit();
    expect(await contact(other, kept).execute()).toHaveLength(1);
    // the one statement, prepared once on the unit's connection and run twice
    expect(await prepared(db, '%insert into "contacts"%')).toHaveLength(1);
  });

  it('marks a raw statement the same way (NAMED_STATEMENT)', async () => {
    const label = `named-raw-${randomUUID()}`;
    const { rows } = await sql<{ label: string }>`${NAMED_STATEMENT}select ${label}::text as label`.execute(db);
    expect(rows).toEqual([{ label }]);
    expect(await prepared(db, '%select $1::text as label')).toHaveLength(1);
  });
});
