import { randomUUID } from 'node:crypto';
import { expect } from '@playwright/test';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, it, expect as check } from 'vitest';
import { createTestAdmin } from '../../test/auth-client';
import { checkPage, signIn, startStudio, type Studio } from './test/studio-fixture';

/** A version of welcome-series of this file's own, so its numbers are exact whatever else ran here. */
const VERSION = 'mapb001';

/**
 * The journey page's map in Chromium against a real api: welcome-series drawn from its code as SVG,
 * each node a focusable link named with its numbers, the same numbers as a table, axe-clean.
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
    const owner = await createTestAdmin(studio.api, 'journey-map');
    ({ page } = await studio.openTab());
    await signIn(page, owner);
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

  it('saw no console error and no failed request', () => {
    check(studio.problems).toEqual([]);
  });
});
