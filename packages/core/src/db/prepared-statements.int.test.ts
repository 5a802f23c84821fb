import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/config';
import { integrationEnv } from '../../../../test/test-env';
import { createPreparedStatementPool, preparedStatement } from './prepared-statements';

describe('createPreparedStatementPool (real PostgreSQL)', () => {
  const config = loadConfig(integrationEnv());
  // one connection: the session that prepared the statement is the one asked about it
  const pool = createPreparedStatementPool({ connectionString: config.databaseUrl, max: 1, applicationName: 'waymark-test-prepared' });
  afterAll(() => pool.close());

  const lookup = preparedStatement<{ n: number; label: string }>(
    'waymark_test_lookup',
    'select n, $2::text as label from unnest($1::int[]) as t(n) order by n',
  );
  const planCounts = preparedStatement<{ genericPlans: string; customPlans: string }>(
    'waymark_test_plan_counts',
    `select generic_plans::text as "genericPlans", custom_plans::text as "customPlans" from pg_prepared_statements where name = $1`,
  );

  it('returns typed rows and binds array parameters', async () => {
    expect(await pool.run(lookup, [[3, 1, 2], 'x'])).toEqual([
      { n: 1, label: 'x' },
      { n: 2, label: 'x' },
      { n: 3, label: 'x' },
    ]);
  });

  it('plans a statement once per connection and reuses the generic plan (no re-planning per execution)', async () => {
    for (let run = 0; run < 8; run += 1) await pool.run(lookup, [[run], 'y']);
    const [counts] = await pool.run(planCounts, ['waymark_test_lookup']);
    // without the pool's plan_cache_mode PostgreSQL would plan each of these runs anew (custom plans)
    expect(Number(counts?.customPlans)).toBe(0);
    expect(Number(counts?.genericPlans)).toBeGreaterThanOrEqual(8);
  });
});
