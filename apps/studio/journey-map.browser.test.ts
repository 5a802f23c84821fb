import { randomUUID } from 'node:crypto';
import { expect } from '@playwright/test';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, it, expect as check } from 'vitest';
import { expectPage } from '../../test/browser';
import { checkPage, startStudio, type Studio } from './test/studio-fixture';

/** A version of welcome-series of this file's own, so its numbers are exact whatever else ran here. */
const VERSION = 'mapb001';

/**
 * The journey page's map in Chromium against a real api: welcome-series drawn from its code as SVG,
 * each node a focusable link named with its numbers, the same numbers as a table, axe-clean; and
 * first-project's page with its map and its outcomes panel.
 * Assertions are Playwright's web-first ones (they retry until the page shows the value).
 */
describe('Studio journey map in Chromium', () => {
  let studio: Studio;
  let page: Page;

  beforeAll(async () => {
    studio = await startStudio();
    const db = studio.api.deps.db;
    for (const [index, node] of ['sleep:2 days', 'sleep:2 days', 'nudge'].entries()) {
      const userId = `map-browser-${index}-${randomUUID()}`;
      const state = await db
        .insertInto('journeyStates')
        .values({
          journeyId: 'welcome-series',
          userId,
          userEmail: `${userId}@example.com`,
          currentNodeId: node,
          status: 'waiting',
          workflowId: `journey-welcome-series-${userId}`,
          context: {},
          journeyVersion: VERSION,
        })
        .returning(['id', 'workflowId'])
        .executeTakeFirstOrThrow();
      await db
        .insertInto('emailSends')
        .values({
          journeyStateId: state.id,
          templateKey: 'welcome',
          fromEmail: 'from@example.com',
          toEmail: `${userId}@example.com`,
          status: 'sent',
          idempotencyKey: `${state.workflowId}:welcome:1`,
          data: {},
          sentAt: new Date(),
          humanOpenedAt: index === 0 ? new Date() : null,
        })
        .execute();
    }
    // one first-project run of this file's version, so the outcomes panel offers it; the counters
    // below are that version's, exact whatever other files' first-project runs add to theirs
    await db
      .insertInto('journeyStates')
      .values({
        journeyId: 'first-project',
        userId: `outcomes-browser-${randomUUID()}`,
        userEmail: 'outcomes-browser@example.com',
        currentNodeId: 'sleep:2 days',
        status: 'waiting',
        workflowId: `journey-first-project-outcomes-browser-${randomUUID()}`,
        context: {},
        journeyVersion: 'outb001',
      })
      .execute();
    // first-project's outcome counters of a version of this file's own (what the database's triggers keep as people enter and convert)
    // over two days of entry, for the chart over time
    const counted = { journeyId: 'first-project', journeyVersion: 'outb001', day: '2026-01-05', shard: 0 };
    const nextDay = { ...counted, day: '2026-01-06' };
    await db
      .insertInto('journeyOutcomeCounts')
      .values([
        { ...counted, holdout: false, enrolled: 3680, converted: 500, value: 0 },
        { ...counted, holdout: true, enrolled: 920, converted: 100, value: 0 },
        { ...nextDay, holdout: false, enrolled: 3680, converted: 530, value: 0 },
        { ...nextDay, holdout: true, enrolled: 920, converted: 119, value: 0 },
      ])
      .execute();
    await db
      .insertInto('journeyStepCounts')
      .values({ ...counted, holdout: false, nodeId: 'first-project-tips', reached: 7360, sent: 7290, humanOpened: 3100, humanClicked: 610, converted: 1030 })
      .execute();
    ({ page } = await studio.openAdminTab('journey-map'));
  });

  afterAll(() => studio?.close());

  it('draws welcome-series with the chosen version’s numbers, as SVG and as a table, usable by keyboard', async () => {
    await page.goto('/studio/journeys/welcome-series');
    const map = page.getByRole('group', { name: 'Map of Welcome series' });
    await expect(map.getByRole('link')).toHaveCount(8);
    await page.getByLabel('Numbers of version').selectOption(VERSION);
    const welcome = map.getByRole('link', { name: 'Send welcome: 0 waiting · 3 sent · 1 opened · 0 clicked' });
    await expect(welcome).toBeVisible();
    await expect(map.getByRole('link', { name: 'Sleep 2 days: 2 waiting' })).toBeVisible();

    const table = page.getByRole('table', { name: 'Journey map numbers' });
    const row = (label: string) => table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: label, exact: true }) });
    await expect(row('Send welcome').getByRole('cell')).toHaveText(['Email', '0', '3', '1', '0', '—']);
    await expect(row('Has project.created since entry?').getByRole('cell')).toHaveText(['Branch', '—', '—', '—', '—', '—']);
    await expect(table.getByRole('row', { name: /^Exit on user\.deleted/ })).toBeVisible();

    // Tab walks the map in the run's order; Enter moves to the node's numbers
    await welcome.focus();
    await page.keyboard.press('Tab');
    await expect(map.getByRole('link', { name: /^Sleep 2 days/ })).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(row('Sleep 2 days')).toBeFocused();

    await checkPage(page, 'journey-map', 'Welcome series');
  });

  it('opens first-project with its map and its outcomes: the lift in words, both arms, byStep and the chart over time, axe-clean', async () => {
    await page.goto('/studio/journeys/first-project');
    const map = page.getByRole('group', { name: 'Map of First project' });
    await expectPage(map.getByRole('link', { name: /^Send first-project-tips/ })).toBeVisible();
    const outcomes = page.getByRole('region', { name: 'Outcomes' });
    await outcomes.getByLabel('Outcomes of').selectOption('outb001');
    await expectPage(outcomes.getByTestId('journey-lift')).toHaveText('+2.1 points, between −0.6 and +4.8 with 95 % confidence; 9,200 people (1,840 held out)');
    const arms = outcomes.getByRole('table', { name: 'Outcomes per arm' });
    await expectPage(arms.getByRole('row', { name: /^With the emails/ }).getByRole('cell')).toHaveText(['7,360', '1,030', '14.0 %', '0']);
    await expectPage(arms.getByRole('row', { name: /^Held out/ }).getByRole('cell')).toHaveText(['1,840', '219', '11.9 %', '0']);
    const steps = outcomes.getByRole('table', { name: 'Outcomes per step' });
    await expectPage(steps.getByRole('row', { name: /^first-project-tips/ }).getByRole('cell')).toHaveText(['7,360', '7,290', '3,100', '610', '1,030']);
    // the chart over time, and its numbers as a table: each arm's rate over everyone who entered so far
    await expectPage(
      outcomes.getByRole('img', {
        name: 'Cumulative conversion rate by day of entry, 2026-01-05 to 2026-01-06: with the emails 14.0 %, held out 11.9 %. The table below has every day’s numbers.',
      }),
    ).toBeVisible();
    await expectPage(outcomes.getByTestId('outcomes-chart').locator('path[data-arm]')).toHaveCount(2);
    const byDay = outcomes.getByRole('table', { name: 'Conversion by day of entry' });
    await expectPage(byDay.getByRole('row', { name: /^2026-01-05/ }).getByRole('cell')).toHaveText(['3,680, 500, 13.6 %', '920, 100, 10.9 %']);
    await expectPage(byDay.getByRole('row', { name: /^2026-01-06/ }).getByRole('cell')).toHaveText(['3,680, 530, 14.0 %', '920, 119, 11.9 %']);
    await checkPage(page, 'journey-outcomes', 'First project');
  });

  it('saw no console error and no failed request', () => {
    check(studio.problems).toEqual([]);
  });
});
