import { randomUUID } from 'node:crypto';
import { expectPage } from '../../test/browser';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { poll, SCREENSHOTS, startStudio, type Studio } from './test/studio-fixture';

/** The contract's per-key budget (100 a minute), instead of the integration environment's 100000. */
const CONTRACT_LIMITS = { RATE_LIMIT_MAX: '100', RATE_LIMIT_WINDOW_MS: '60000' };

/** Text of React Router's default error screen, and of the studio's own screens for a page that failed. */
const ERROR_SCREENS = /Unexpected Application Error|Failed to fetch dynamically imported module|This page could not be shown|Slow down/;

async function showsPage(page: Page, path: string): Promise<void> {
  await page.goto(path);
  await expectPage(page.getByRole('heading', { level: 1 })).toHaveCount(1);
  await expectPage(page.locator('[aria-busy="true"]')).toHaveCount(0);
  await expectPage(page.locator('body')).not.toHaveText(ERROR_SCREENS);
}

/**
 * A signed-in person clicking through the studio meets no rate limit (docs/operations.md, Rate
 * limits): its files are not limited, and a person's API budget is their own; when a person does
 * go past it, the studio says so in its own panel, never with a raw error page.
 */
describe('the studio and the rate limit, in Chromium', () => {
  describe('with the contract limits', () => {
    let studio: Studio;
    let page: Page;
    const seeded = { contactId: '', emailId: '' };

    beforeAll(async () => {
      studio = await startStudio(CONTRACT_LIMITS);
      const { api, legacyKey } = studio;
      const userId = `rl-studio-${randomUUID().slice(0, 8)}`;
      const event = await api.request('POST', '/v1/events', {
        token: legacyKey,
        body: { name: 'user.signed_up', userId, email: `${userId}@waymark-test.example` },
      });
      expect(event.status).toBe(202);
      const sent = await api.request('POST', '/v1/emails', {
        token: legacyKey,
        body: { templateKey: 'welcome', to: `${userId}@waymark-test.example`, data: { firstName: 'Ada' } },
      });
      expect(sent.status).toBe(202);
      seeded.emailId = sent.body.emailSendId;
      seeded.contactId = (await api.request('GET', `/v1/admin/contacts/${userId}`, { token: legacyKey })).body.contact.id;
      ({ page } = await studio.openAdminTab('rl-studio'));
    });
    afterAll(() => studio?.close());

    it('loads every page twice in a minute: no 429 and no error screen', async () => {
      const pages = [
        '/studio',
        '/studio/journeys',
        '/studio/journeys/welcome-series',
        '/studio/contacts',
        `/studio/contacts/${seeded.contactId}`,
        '/studio/emails',
        `/studio/emails/${seeded.emailId}`,
        '/studio/templates',
        '/studio/events',
        '/studio/dlq',
        '/studio/settings/api-keys',
        '/studio/settings/webhooks',
        '/studio/settings/alerts',
        '/studio/settings/members',
        '/studio/settings/audit-log',
      ];
      for (let round = 0; round < 2; round++) for (const path of pages) await showsPage(page, path);
      expect(studio.problems.filter((problem) => /HTTP 429|page error/.test(problem))).toEqual([]);
    });
  });

  describe('past a person’s budget', () => {
    let studio: Studio;

    beforeAll(async () => {
      // a budget a single page load spends, and a window too long for the one automatic retry
      studio = await startStudio({ ...CONTRACT_LIMITS, SESSION_RATE_LIMIT_MAX: '3' });
    });
    afterAll(() => studio?.close());

    it('shows its own slow-down panel, never a raw error page or the router’s default screen', async () => {
      const { page } = await studio.openAdminTab('rl-slow');
      const panel = page.getByRole('alert').filter({ hasText: 'Slow down a little' });
      // the overview's own calls go past the budget: panels inside the studio's frame, navigation kept
      await poll(() => panel.count()).toBeGreaterThan(0);
      await expectPage(page.getByRole('navigation').first()).toBeVisible();
      await expect(
        panel
          .first()
          .getByRole('button', { name: /Try again in \d+ s/ })
          .isDisabled(),
      ).resolves.toBe(true);
      await page.screenshot({ path: path.join(SCREENSHOTS, 'slow-down-desktop.png'), fullPage: true });
      // a reload whose very first call (the session) is refused gets the panel too
      await page.goto('/studio/contacts');
      await expectPage(panel).toHaveCount(1);
      await expectPage(page.locator('body')).not.toHaveText(/Unexpected Application Error|Rate limit exceeded/);
      expect(studio.problems.filter((problem) => problem.startsWith('page error'))).toEqual([]);
    });
  });
});
