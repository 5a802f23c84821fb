import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, it, expect as check } from 'vitest';
import { expectPage } from '../../test/browser';
import { checkPage, startStudio, type Studio } from './test/studio-fixture';

/**
 * A broadcast's goal panel in Chromium against a real api (docs/broadcasts.md, "Goals and
 * holdouts"): the lift in words, both arms and the chart over time with its table, as the journey
 * page's outcomes panel shows them, axe-clean. The broadcast and its counters are written here, so its numbers are exact.
 * Assertions are Playwright's web-first ones (they retry until the page shows the value).
 */
describe('Studio broadcast goal in Chromium', () => {
  let studio: Studio;
  let page: Page;
  let id: string;
  const name = `Goal ${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    studio = await startStudio();
    const db = studio.api.deps.db;
    const broadcast = await db
      .insertInto('broadcasts')
      .values({
        name,
        templateKey: 'reengage-we-miss-you',
        category: 'newsletter',
        audience: JSON.stringify({ all: true }),
        data: JSON.stringify({ productName: 'Atlas' }),
        goal: JSON.stringify({ event: 'subscription.started', within: '7 days' }),
        goalWithinMs: 7 * 86_400_000,
        holdoutPercent: 20,
        status: 'sent',
        audienceSize: 9200,
        startedAt: new Date(),
        completedAt: new Date(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    id = broadcast.id;
    // the counters the recipients' triggers keep (migrations/0135, 0245)
    const buckets: [string, number][] = [
      ['sent', 7360],
      ['skipped:holdout', 1840],
      ['goal:treatment', 7360],
      ['goal:holdout', 1840],
      ['goal:treatment:converted', 1030],
      ['goal:holdout:converted', 219],
    ];
    await db
      .insertInto('broadcastCounts')
      .values(buckets.map(([bucket, n]) => ({ broadcastId: id, variantId: null, bucket, shard: 0, n })))
      .execute();
    // and their days (migration 0270): everyone exposed on the first, conversions over two days
    const first = { broadcastId: id, variantId: null, day: '2026-01-05', shard: 0 };
    const second = { ...first, day: '2026-01-06' };
    await db
      .insertInto('broadcastGoalDays')
      .values([
        { ...first, holdout: false, exposed: 7360, converted: 500 },
        { ...first, holdout: true, exposed: 1840, converted: 100 },
        { ...second, holdout: false, exposed: 0, converted: 530 },
        { ...second, holdout: true, exposed: 0, converted: 119 },
      ])
      .execute();
    ({ page } = await studio.openAdminTab('studio-broadcast-goal'));
  });

  afterAll(async () => {
    await studio?.close();
  });

  it('shows the goal: the lift in words, both arms and the conversion over time, axe-clean', async () => {
    await page.goto(`/studio/broadcasts/${id}`);
    const goal = page.getByRole('region', { name: 'Goal' });
    await expectPage(goal.getByText(/^Goal: subscription\.started within 7 days of each person’s email; 20 % of the audience held out/)).toBeVisible();
    await expectPage(goal.getByTestId('broadcast-lift')).toHaveText('+2.1 points, between −0.6 and +4.8 with 95 % confidence; 9,200 people (1,840 held out)');
    const arms = goal.getByRole('table', { name: 'Outcomes per arm' });
    await expectPage(arms.getByRole('row', { name: /^With the email/ }).getByRole('cell')).toHaveText(['7,360', '1,030', '14.0 %', '0']);
    await expectPage(arms.getByRole('row', { name: /^Held out/ }).getByRole('cell')).toHaveText(['1,840', '219', '11.9 %', '0']);
    // the chart over time, and its numbers as a table: each arm's conversions so far over everyone exposed so far
    await expectPage(
      goal.getByRole('img', {
        name: 'Cumulative conversion rate by day, 2026-01-05 to 2026-01-06: with the email 14.0 %, held out 11.9 %. The table below has every day’s numbers.',
      }),
    ).toBeVisible();
    await expectPage(goal.getByTestId('outcomes-chart').locator('path[data-arm]')).toHaveCount(2);
    const byDay = goal.getByRole('table', { name: 'Conversion by day', exact: true });
    await expectPage(byDay.getByRole('columnheader')).toHaveText([
      'Day',
      'With the email: exposed, converted, rate so far',
      'Held out: exposed, converted, rate so far',
    ]);
    await expectPage(byDay.getByRole('row', { name: /^2026-01-05/ }).getByRole('cell')).toHaveText(['7,360, 500, 6.8 %', '1,840, 100, 5.4 %']);
    await expectPage(byDay.getByRole('row', { name: /^2026-01-06/ }).getByRole('cell')).toHaveText(['0, 530, 14.0 %', '0, 119, 11.9 %']);
    await expectPage(page.getByRole('list', { name: 'Skipped by reason' })).toHaveText('held out: 1,840');
    await checkPage(page, 'broadcast-goal', name);
  });

  it('saw no console error and no failed request', () => {
    check(studio.problems).toEqual([]);
  });
});
