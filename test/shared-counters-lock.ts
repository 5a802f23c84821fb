import pg from 'pg';
import { integrationEnv } from './test-env';

/**
 * Integration files share one database and run two at a time. A file whose assertions are exact
 * deltas of a journey's shared counters (first-project's outcomes, its map's numbers, the program
 * holdout's arms) holds this lock for its whole run, so another such file never enrols people
 * between its before and after reads. The lock is a PostgreSQL session advisory lock: a file that
 * dies lets go with its connection.
 */
export async function holdSharedCounters(name: string): Promise<() => Promise<void>> {
  const client = new pg.Client({ connectionString: integrationEnv().DATABASE_URL });
  await client.connect();
  await client.query('select pg_advisory_lock(hashtext($1))', [`waymark-test:shared-counters:${name}`]);
  return async () => {
    await client.query('select pg_advisory_unlock(hashtext($1))', [`waymark-test:shared-counters:${name}`]);
    await client.end();
  };
}

/** How long a file may wait for the lock: the longest holder (first-project's 500 people) takes minutes. */
export const SHARED_COUNTERS_WAIT_MS = 900_000;
