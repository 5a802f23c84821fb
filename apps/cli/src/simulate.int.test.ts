import { createDatabase } from '@waymark/core/db/database';
import trialConversion from '@waymark/journeys/trial-conversion';
import { describe, expect, it } from 'vitest';
import { expectedSimulationMonth, seedSimulationMonth } from '../../../test/fixtures/simulation-month';
import { withScratchDatabase } from '../../../test/scratch-database';
import { formatSimulation, runSimulation } from './simulate';

describe('waymark simulate', () => {
  it('replays a month of real events for 200 users and counts what the current journey would send', async () => {
    await withScratchDatabase(async (databaseUrl) => {
      const db = createDatabase({ connectionString: databaseUrl, max: 2 });
      try {
        const now = new Date('2026-11-30T12:00:00Z');
        await seedSimulationMonth(db, now);

        const result = await runSimulation(db, { journey: trialConversion, since: '30 days', limit: 10_000, now });
        const { report } = result;
        expect(report).toMatchObject(expectedSimulationMonth);
        expect(report.samples['exited:subscription.started']).toHaveLength(3);
        expect(report.samples['not_entered:trigger_where']).toHaveLength(3);
        expect(report.rate).toBeGreaterThan(0);
        // nothing was sent or written: the live journey's sends are the (empty) comparison
        expect(result.actual).toEqual({});
        expect(await db.selectFrom('journeyStates').select('id').execute()).toEqual([]);
        expect(await db.selectFrom('emailSends').select('id').execute()).toEqual([]);
        expect(formatSimulation(result)).toContain('trial-last-chance                    50               0');
        // an ISO date starts the window too: 10 days back leaves the older triggers out
        const recent = await runSimulation(db, { journey: trialConversion, since: '2026-11-20T12:00:00Z', limit: 10_000, now });
        expect(recent.report.enrollments).toBeLessThan(150);
        expect(recent.window.since).toBe('2026-11-20T12:00:00.000Z');
        console.log(`[simulate] 200 users: ${report.rate} enrollments/s`);
      } finally {
        await db.destroy();
      }
    });
  }, 600_000);
});
