import { sql } from 'kysely';
import { createDatabase } from './database';

/**
 * Creates the database a connection string names when it does not exist yet (connecting to the
 * server's `postgres` database to do so). Tests and benchmarks each use a database of their own.
 */
export async function ensureDatabaseExists(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  url.pathname = '/postgres';
  const admin = createDatabase({ connectionString: url.toString(), max: 1 });
  try {
    const existing = await sql<{ n: number }>`select count(*)::int as n from pg_database where datname = ${name}`.execute(admin);
    if (existing.rows[0]?.n === 0) await sql`create database ${sql.id(name)}`.execute(admin);
  } finally {
    await admin.destroy();
  }
}
