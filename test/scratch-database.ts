import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { createDatabase } from '@waymark/core/db/database';
import { migrateToLatest } from '@waymark/core/db/migrator';
import { integrationEnv } from './test-env';

/** A throwaway, migrated database for tests that need an empty world (e.g. "no keys at all"). */
export async function withScratchDatabase<T>(use: (databaseUrl: string) => Promise<T>): Promise<T> {
  const baseUrl = integrationEnv().DATABASE_URL;
  const name = `waymark_scratch_${randomBytes(6).toString('hex')}`;
  const admin = createDatabase({ connectionString: baseUrl, max: 1 });
  await sql`create database ${sql.id(name)}`.execute(admin);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  const scratch = createDatabase({ connectionString: url.toString(), max: 1 });
  try {
    const migrated = await migrateToLatest(scratch);
    if (migrated.error !== undefined) throw migrated.error;
    await scratch.destroy();
    return await use(url.toString());
  } finally {
    await scratch.destroy().catch(() => undefined);
    await sql`drop database if exists ${sql.id(name)} with (force)`.execute(admin);
    await admin.destroy();
  }
}
