import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { withScratchDatabase } from '../../../../test/scratch-database';
import { eventually } from '../../../../test/eventually';
import { createDatabase } from '../db/database';
import { deploymentCategories } from '../../../../test/deployment-categories';
import { enterJourney, type EnterJourneyInput } from './run-steps';

/**
 * Temporal retries an activity once its start-to-close timeout passes, even when the first
 * attempt is only slow: two attempts of one run's entry can then overlap. A scratch database of
 * this file's own, because the test holds a lock on journey_states to make the overlap certain.
 */
describe('enterJourney: an attempt overlapping the one it replaces', () => {
  it('both attempts answer entered with the same state, not entry_limit', async () => {
    await withScratchDatabase(async (databaseUrl) => {
      const db = createDatabase({ connectionString: databaseUrl, max: 4 });
      const blocker = new pg.Client({ connectionString: databaseUrl });
      await blocker.connect();
      try {
        const workflowId = `journey:overlap:${randomUUID()}`;
        const input: EnterJourneyInput = {
          journeyId: 'welcome-series',
          userId: `overlap-${randomUUID().slice(0, 8)}`,
          userEmail: 'overlap@example.com',
          workflowId,
          runId: randomUUID(),
          entryLimit: 'once',
          context: {},
        };
        // the first attempt takes its entry row, then waits on the state insert; the second
        // finds no state yet and waits on the first attempt's entry row
        await blocker.query('begin');
        await blocker.query('lock table journey_states in share mode');
        const first = enterJourney(db, input, deploymentCategories);
        const second = new Promise((resolve) => setTimeout(resolve, 200)).then(() => enterJourney(db, input, deploymentCategories));
        await eventually(
          async () => (await blocker.query<{ n: number }>(`select count(*)::int as n from pg_locks where not granted`)).rows[0]!.n,
          (n) => n >= 2,
          { timeoutMs: 20_000, intervalMs: 50, what: 'both attempts to wait on locks' },
        );
        await blocker.query('rollback');
        const [a, b] = await Promise.all([first, second]);
        expect(a).toMatchObject({ entered: true });
        expect(b).toEqual(a);
        const states = await db.selectFrom('journeyStates').select('id').where('workflowId', '=', workflowId).execute();
        expect(states).toHaveLength(1);
      } finally {
        await blocker.end();
        await db.destroy();
      }
    });
  }, 60_000);
});
