import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, expectPage } from '../../../../../test/browser';
import { uniqueAddress } from '../../../../../test/email-emulator';
import { startTestApi, type TestApi } from '../../../../../test/test-api';

const SCREENSHOTS = path.resolve('test-results/email-pages');
const PUBLIC_URL = 'http://pages.waymark-test.example';

/**
 * The public pages in headless Chromium: they render, fit a phone screen without horizontal
 * scrolling, are keyboard- and screen-reader-usable, and work end to end by clicking.
 * Screenshots land in test-results/email-pages/ for a human look.
 */
describe('email pages in Chromium', () => {
  let api: TestApi;
  let browser: Browser;

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    browser = await launchChromium();
    api = await startTestApi({ API_PUBLIC_URL: PUBLIC_URL });
  });

  // links in the pages use API_PUBLIC_URL: the browser sends that host to this test instance
  async function newPage(viewport: { width: number; height: number }) {
    const context = await browser.newContext({ viewport });
    // (helmet's CSP upgrade-insecure-requests turns followed links into https://, hence both schemes)
    await context.route(/^https?:\/\/pages\.waymark-test\.example\//, async (route) =>
      route.fulfill({
        response: await route.fetch({
          url: route
            .request()
            .url()
            .replace(/^https?:\/\/pages\.waymark-test\.example/, api.url),
          maxRedirects: 0,
        }),
      }),
    );
    return { context, page: await context.newPage() };
  }
  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  // no serious or critical axe violation on the page as it stands
  async function expectAxeClean(page: Page) {
    const axe = await new AxeBuilder({ page }).analyze();
    const serious = axe.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
    expect(serious.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`)).toEqual([]);
  }
  const gate = (email: string) => api.deps.db.selectFrom('emailPreferences').selectAll().where('email', '=', email).execute();

  const tokenUrl = async (
    page: 'unsubscribe' | 'preferences',
    payload: { externalId: string; email: string; action: 'unsubscribe' | 'resubscribe'; category?: string },
  ) => `${PUBLIC_URL}/v1/email/${page}?token=${await api.deps.email.tokens.sign(payload)}`;

  it.each([
    ['phone', { width: 360, height: 740 }],
    ['desktop', { width: 1280, height: 800 }],
  ])('renders the preference center, toggles a category by clicking, and fits the %s viewport', async (name, viewport) => {
    const { context, page } = await newPage(viewport);
    const email = uniqueAddress('browser');
    const response = await page.goto(await tokenUrl('preferences', { externalId: `u-${randomUUID()}`, email, action: 'unsubscribe' }));
    expect(response?.status()).toBe(200);
    await expectPage(page).toHaveTitle('Email preferences');
    await expectPage(page.getByRole('heading', { level: 1 })).toHaveText('Email preferences');
    // no horizontal scrolling on a phone
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    // tap targets are at least 44 px high
    const heights = await page.locator('.button').evaluateAll((targets) => targets.map((target) => target.getBoundingClientRect().height));
    expect(Math.min(...heights)).toBeGreaterThanOrEqual(44);
    await expectAxeClean(page);
    await page.screenshot({ path: path.join(SCREENSHOTS, `preferences-${name}.png`), fullPage: true });

    // keyboard: Tab reaches the category toggle (a form's button) first, Enter submits it
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Unsubscribe');
    await Promise.all([page.waitForURL(/\/v1\/email\/unsubscribe/), page.keyboard.press('Enter')]);
    await expectPage(page.getByRole('status')).toHaveText('You are unsubscribed');
    await expectAxeClean(page);
    await page.screenshot({ path: path.join(SCREENSHOTS, `unsubscribed-${name}.png`), fullPage: true });

    await page.getByRole('link', { name: 'Manage email preferences' }).click();
    await page.waitForURL(/\/v1\/email\/preferences/);
    await expectPage(page.locator('ul.prefs .status').first()).toHaveText('Unsubscribed');
    await page.getByRole('button', { name: 'Resubscribe', exact: true }).click();
    await expectPage(page.getByRole('status')).toHaveText('You are resubscribed');
    await context.close();
  });

  it('an unsubscribe link only asks; its button unsubscribes, and Undo takes it back', async () => {
    const { context, page } = await newPage({ width: 360, height: 740 });
    const email = uniqueAddress('browser-link');
    const response = await page.goto(await tokenUrl('unsubscribe', { externalId: `u-${randomUUID()}`, email, action: 'unsubscribe' }));
    expect(response?.status()).toBe(200);
    await expectPage(page.getByRole('heading', { level: 1 })).toHaveText('Unsubscribe from all emails?');
    expect(await gate(email)).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await expectAxeClean(page);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'question-phone.png'), fullPage: true });

    await page.getByRole('button', { name: 'Unsubscribe' }).click();
    await expectPage(page.getByRole('status')).toHaveText('You are unsubscribed');
    expect(await gate(email)).toMatchObject([{ unsubscribedAll: true }]);
    await expectAxeClean(page);

    await page.getByRole('button', { name: 'Undo' }).click();
    await expectPage(page.getByRole('status')).toHaveText('You are resubscribed');
    expect(await gate(email)).toMatchObject([{ unsubscribedAll: false }]);
    await context.close();
  });

  it('renders the 400 error page for a bad token', async () => {
    const { context, page } = await newPage({ width: 360, height: 740 });
    const response = await page.goto(`${PUBLIC_URL}/v1/email/unsubscribe?token=expired-or-bogus`);
    expect(response?.status()).toBe(400);
    await expectPage(page.getByRole('heading', { level: 1 })).toHaveText('This link is not valid');
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'error-phone.png'), fullPage: true });
    await context.close();
  });
});
