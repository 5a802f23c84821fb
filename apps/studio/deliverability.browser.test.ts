import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimWarmup } from '@waymark/core/deliverability/warmup';
import { defineDeliveryPolicy } from '@waymark/journey';
import { expectPage } from '../../test/browser';
import { startFixtureDns } from '../../test/fixture-dns';
import { checkPage, poll, startStudio, viewports, type Studio } from './test/studio-fixture';

/**
 * Settings → Deliverability in Chromium against a real api: the doctor's checks, read from a
 * fixture DNS zone for the tests' sender (waymark.local) and the shared SES emulator, and the
 * reputation breaker, and a warm-up ramp with today's use. Fails on any console error, failed request, or serious/critical axe
 * violation; screenshots: test-results/studio/.
 */
describe('Studio deliverability in Chromium', () => {
  let studio: Studio;
  let page: Page;
  let dns: Awaited<ReturnType<typeof startFixtureDns>>;

  beforeAll(async () => {
    dns = await startFixtureDns({
      'waymark.local': { txt: ['v=spf1 include:amazonses.com ~all'] },
      'amazonses.com': { txt: ['v=spf1 ip4:199.255.192.0/22 -all'] },
      '_dmarc.waymark.local': { txt: ['v=DMARC1; p=none'] },
    });
    // breaker settings away from their defaults, so the page can only say them from this api's config and policy
    studio = await startStudio(
      { DNS_RESOLVER: dns.address, REPUTATION_COOLDOWN_HOURS: '9', REPUTATION_WINDOW_HOURS: '36', REPUTATION_MIN_SENDS: '1200' },
      { deliveryPolicy: defineDeliveryPolicy({ warmup: { startPerDay: 50, growth: 2, until: 1_000 }, reputation: { pauseComplaintRate: 0.004 } }) },
    );
    ({ page } = await studio.openAdminTab('deliverability'));
  });

  afterAll(async () => {
    await studio?.close();
    await dns?.close();
  });

  it('lists every check with its status and fix, the tally, and the breaker', async () => {
    await page.getByRole('link', { name: 'Deliverability' }).click();
    await page.waitForURL((url) => url.pathname === '/studio/settings/deliverability');
    await checkPage(page, 'deliverability', 'Deliverability');
    const { checks, breaker } = (await studio.api.request('GET', '/v1/admin/deliverability', { token: studio.legacyKey })).body as {
      checks: { id: string; status: string }[];
      breaker: { group: string; provider: string; state: string }[];
    };
    const table = page.getByRole('table', { name: 'Deliverability checks' });
    await expectPage(table.getByRole('row')).toHaveCount(checks.length + 1);
    const row = (id: string) => table.getByRole('row').filter({ has: page.getByText(id, { exact: true }) });
    await expectPage(row('dns.spf')).toHaveText(/^pass.*waymark\.local: "v=spf1 include:amazonses\.com ~all" \(1 of 10 lookups\)/);
    await expectPage(row('dns.dmarc')).toHaveText(/^pass.*p=none/);
    // the shared emulator has no GetAccount: not known, so a warning with what to do
    await expectPage(row('ses.account.status')).toHaveText(/^warn.*could not read the SES account/);
    const count = (status: string) => checks.filter((check) => check.status === status).length;
    await expectPage(page.getByRole('status')).toHaveText(
      `${count('fail')} failing, ${count('warn')} warning${count('warn') === 1 ? '' : 's'}, ${count('pass')} passing`,
    );
    // when the breaker acts, in this api's settings (the defaults where neither sets one)
    await expectPage(page.getByTestId('breaker-settings')).toHaveText(
      'Per category group and mailbox provider, over the last 36 hours and once it has 1,200 sends: slowed from 4 % bounces or 0.1 % complaints, ' +
        'paused from 8 % or 0.4 %; back to ok by itself after 9 hours under the slow thresholds.',
    );
    // the breaker's rows are the shared database's (other files send mail, so more may come): each one shown, or the empty text
    const breakerTable = page.getByRole('table', { name: 'Reputation breaker' });
    if (breaker.length === 0) await expectPage(page.getByText('Every group sends at its full rate.')).toBeVisible();
    else
      for (const { group, provider } of breaker)
        await expectPage(breakerTable.getByRole('row').filter({ hasText: group }).filter({ hasText: provider }).first()).toBeVisible();
  });

  it("shows the warm-up plan, day by day, and today's use", async () => {
    // seven marketing sends through the ramp today (the shared database may hold earlier runs' use of today)
    await claimWarmup(studio.api.deps.db, studio.api.deps.email.delivery.policy, 7, new Date());
    await page.reload();
    const { warmup } = (await studio.api.request('GET', '/v1/admin/deliverability', { token: studio.legacyKey })).body as {
      warmup: { today: { day: string; allowance: number; used: number }; days: { day: string; allowance: number | null }[] };
    };
    expect(warmup.today.used).toBeGreaterThanOrEqual(7);
    await expectPage(page.getByText(`Today: ${warmup.today.used} of ${warmup.today.allowance} used`)).toBeVisible();
    const plan = page.getByRole('table', { name: 'Warm-up plan' });
    await expectPage(plan.getByRole('row')).toHaveCount(warmup.days.length + 1);
    await expectPage(plan.getByRole('row').filter({ hasText: `${warmup.today.day} (today)` })).toContainText(String(warmup.today.used));
    // the ramp's last capped day, then the day it ends
    await expectPage(plan.getByRole('row').filter({ hasText: '800' })).toBeVisible();
    await expectPage(plan.getByRole('row').last()).toContainText('no cap: the ramp is over');
    await checkPage(page, 'deliverability-warmup', 'Deliverability');
  });

  it('on a phone, shows each check as a card of labelled lines instead of a table that scrolls sideways', async () => {
    await page.setViewportSize(viewports.phone);
    try {
      const frame = page.getByRole('region', { name: 'Deliverability checks' });
      const table = page.getByRole('table', { name: 'Deliverability checks' });
      await poll(() => frame.evaluate((element) => element.scrollWidth - element.clientWidth)).toBeLessThanOrEqual(1);
      // still a table to assistive technology: the header row and one row per check
      const rows = await table.getByRole('row').count();
      expect(rows).toBeGreaterThan(1);
      await expectPage(table.getByRole('columnheader')).toHaveText(['Status', 'Check', 'Found', 'Fix']);
      // each value is drawn beside its column's name
      const spf = table.getByRole('row').filter({ has: page.getByText('dns.spf', { exact: true }) });
      const label = (column: number) =>
        spf
          .getByRole('cell')
          .nth(column)
          .evaluate((cell) => getComputedStyle(cell, '::before').content);
      expect(await label(1)).toContain('"Check"');
      expect(await label(2)).toContain('"Found"');
    } finally {
      await page.setViewportSize(viewports.desktop);
    }
  });

  it('checks again on request', async () => {
    const answered = page.waitForResponse((response) => response.url().endsWith('/v1/admin/deliverability') && response.status() === 200);
    await page.getByRole('button', { name: 'Check again' }).click();
    await answered;
    await expectPage(page.getByRole('button', { name: 'Check again' })).toBeEnabled();
    // a header row and at least one check
    await expectPage(page.getByRole('table', { name: 'Deliverability checks' }).getByRole('row').nth(1)).toBeVisible();
  });

  it('saw no console error and no failed request', () => {
    expect(studio.problems).toEqual([]);
  });
});
