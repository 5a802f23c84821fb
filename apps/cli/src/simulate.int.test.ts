import { createDatabase } from '@waymark/core/db/database';
import trialConversion from '@waymark/journeys/trial-conversion';
import { describe, expect, it } from 'vitest';
import { withScratchDatabase } from '../../../test/scratch-database';
import { runSimulation } from './simulate';

const DAY = 86_400_000;
const HOUR = 3_600_000;

describe('waymark simulate', () => {
  it('replays a month of real events for 200 users and counts what the current journey would send', async () => {
    await withScratchDatabase(async (databaseUrl) => {
      const db = createDatabase({ connectionString: databaseUrl, max: 2 });
      try {
        const now = new Date('2026-11-30T12:00:00Z');
        const rows = [];
        // 200 trials spread over days 1-19 of the window, each with a later history:
        //   i % 4 = 0 → free plan: trigger.where fails, no entry                        (50)
        //   i % 4 = 1 → pro, subscribes a day later: exits after trial-welcome only       (50)
        //   i % 4 = 2 → team, views pricing 4 days in (during the wait): pricing follow-up (50)
        //   i % 4 = 3 → pro, never views pricing: last chance after 7 days               (50)
        for (let i = 0; i < 200; i++) {
          const userId = `sim-${i}`;
          const at = new Date(now.getTime() - 29 * DAY + (i % 19) * DAY + (i % 7) * HOUR);
          const plan = i % 4 === 0 ? 'free' : i % 4 === 2 ? 'team' : 'pro';
          rows.push({ userId, userEmail: `${userId}@example.com`, event: 'trial.started', properties: JSON.stringify({ plan }), occurredAt: at });
          rows.push({
            userId,
            userEmail: null,
            event: 'page.viewed',
            properties: JSON.stringify({ path: '/docs' }),
            occurredAt: new Date(at.getTime() + HOUR),
          });
          if (i % 4 === 1) rows.push({ userId, userEmail: null, event: 'subscription.started', properties: '{}', occurredAt: new Date(at.getTime() + DAY) });
          // a pricing view during the first 3 days does not count (the wait starts after them)
          if (i % 4 === 3) rows.push({ userId, userEmail: null, event: 'pricing.viewed', properties: '{}', occurredAt: new Date(at.getTime() + 2 * DAY) });
          if (i % 4 === 2) rows.push({ userId, userEmail: null, event: 'pricing.viewed', properties: '{}', occurredAt: new Date(at.getTime() + 4 * DAY) });
        }
        // outside the window: ignored
        rows.push({
          userId: 'sim-old',
          userEmail: 'old@example.com',
          event: 'trial.started',
          properties: '{"plan":"pro"}',
          occurredAt: new Date(now.getTime() - 40 * DAY),
        });
        await db.insertInto('events').values(rows).execute();

        const result = await runSimulation(db, { journey: trialConversion, since: '30 days', limit: 10_000, now });
        const { report } = result;
        expect(report.notEntered).toEqual({ trigger_where: 50 });
        expect(report.enrollments).toBe(150);
        expect(report.statuses).toEqual({ exited: 50, completed: 100 });
        expect(report.exits).toEqual({ 'subscription.started': 50 });
        expect(report.sentByTemplate).toEqual({ 'trial-welcome': 150, 'trial-pricing-followup': 50, 'trial-last-chance': 50 });
        expect(report.byNode).toEqual({ 'trial-welcome': 150, 'trial-pricing-followup': 50, 'trial-last-chance': 50 });
        expect(report.samples['exited:subscription.started']).toHaveLength(3);
        expect(report.samples['not_entered:trigger_where']).toHaveLength(3);
        expect(report.rate).toBeGreaterThan(0);
        // nothing was sent or written: the live journey's sends are the (empty) comparison
        expect(result.actual).toEqual({});
        expect(await db.selectFrom('journeyStates').select('id').execute()).toEqual([]);
        expect(await db.selectFrom('emailSends').select('id').execute()).toEqual([]);
        console.log(`[simulate] 200 users: ${report.rate} enrollments/s`);
      } finally {
        await db.destroy();
      }
    });
  }, 600_000);
});
