import { sql } from 'kysely';
import { createDatabase, type Db } from './database';

/** Runs `use` against the server's `postgres` database, with the name of the one `databaseUrl` names. */
async function withServerAdmin(databaseUrl: string, use: (admin: Db, name: string) => Promise<void>): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  url.pathname = '/postgres';
  const admin = createDatabase({ connectionString: url.toString(), max: 1 });
  try {
    await use(admin, name);
  } finally {
    await admin.destroy();
  }
}

/**
 * Creates the database a connection string names when it does not exist yet (connecting to the
 * server's `postgres` database to do so). Tests and benchmarks each use a database of their own.
 */
export async function ensureDatabaseExists(databaseUrl: string): Promise<void> {
  await withServerAdmin(databaseUrl, async (admin, name) => {
    const existing = await sql<{ n: number }>`select count(*)::int as n from pg_database where datname = ${name}`.execute(admin);
    if (existing.rows[0]?.n === 0) await sql`create database ${sql.id(name)}`.execute(admin);
  });
}

/** Drops (closing its sessions) and recreates the database a connection string names: benchmarks start empty. */
export async function recreateDatabase(databaseUrl: string): Promise<void> {
  await withServerAdmin(databaseUrl, async (admin, name) => {
    await sql`drop database if exists ${sql.id(name)} with (force)`.execute(admin);
    await sql`create database ${sql.id(name)}`.execute(admin);
  });
}
