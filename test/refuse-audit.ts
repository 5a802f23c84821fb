import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '@waymark/core/db/database';

/**
 * Makes every audit row of `actor` (a key name, or a person's email) fail to be written, in the
 * test's own database: a trigger, never a branch in the code under test. For the tests that a
 * change whose audit row cannot be written does not happen (docs/security.md). Returns what drops
 * it again. The function and trigger are named per call, so test files running at once on one
 * database do not replace each other's.
 */
export async function refuseAuditRowsOf(db: Db, actor: string): Promise<() => Promise<void>> {
  const name = `test_refuse_audit_${randomUUID().replaceAll('-', '_')}`;
  await sql`create function ${sql.id(name)}() returns trigger language plpgsql as $$
    begin raise exception 'audit row refused by the test'; end $$`.execute(db);
  await sql`create trigger ${sql.id(name)} before insert on audit_logs
    for each row when (new.actor = ${sql.lit(actor)}) execute function ${sql.id(name)}()`.execute(db);
  return async () => {
    await sql`drop trigger if exists ${sql.id(name)} on audit_logs`.execute(db);
    await sql`drop function if exists ${sql.id(name)}()`.execute(db);
  };
}
