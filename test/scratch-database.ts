import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll } from 'vitest';
import { createDatabase, type Db } from '@waymark/core/db/database';
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
  } finally {
    await scratch.destroy();
  }
  try {
    return await use(url.toString());
  } finally {
    // pg's pool.end() resolves before its sockets close; a forced drop racing them makes the
    // server kill a closing client (57P01), which surfaces as an uncaught error. Let them go first.
    for (let attempt = 0; attempt < 50; attempt++) {
      const open = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where datname = ${name}`.execute(admin);
      if (open.rows[0]?.n === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await sql`drop database if exists ${sql.id(name)} with (force)`.execute(admin);
    await admin.destroy();
  }
}

export interface ScratchDatabase {
  url: string;
  /** drops the database once its connections are gone */
  release(): Promise<void>;
}

/**
 * A scratch database that outlives one callback, e.g. for a whole test file (`beforeAll` opens
 * it, `afterAll` calls `release`, which drops it).
 */
export async function openScratchDatabase(): Promise<ScratchDatabase> {
  let finish: (() => void) | undefined;
  let done: Promise<void> | undefined;
  const url = await new Promise<string>((resolveUrl, reject) => {
    done = withScratchDatabase(
      (scratchUrl) =>
        new Promise<void>((release) => {
          finish = release;
          resolveUrl(scratchUrl);
        }),
    ).catch(reject);
  });
  return {
    url,
    async release() {
      finish?.();
      await done;
    },
  };
}

/**
 * A scratch database for the describe block it is called in: opened (and connected to) before
 * its tests, dropped after them. `db()` and `url()` answer once the block's tests run.
 */
export function useScratchDatabase(): { db: () => Db; url: () => string } {
  let scratch: ScratchDatabase | undefined;
  let db: Db | undefined;
  beforeAll(async () => {
    scratch = await openScratchDatabase();
    db = createDatabase({ connectionString: scratch.url, max: 4 });
  }, 60_000);
  afterAll(async () => {
    await db?.destroy();
    await scratch?.release();
  });
  return { db: () => db!, url: () => scratch!.url };
}
