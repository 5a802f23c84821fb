import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { buildStudioIfStale } from '../../../scripts/studio-build';
import { launchChromium, expectPage } from '../../../test/browser';
import { createTestAdmin } from '../../../test/auth-client';
import { freePort } from '../../../test/free-port';
import { startTestApi, type TestApi } from '../../../test/test-api';

/** Every browser test file of the studio saves its screenshots here (printed once per file). */
export const SCREENSHOTS = path.resolve('test-results/studio');

export const viewports = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
};

/** expect.poll with a deadline for two busy cores (a lazy page chunk can take seconds to arrive) */
export const poll = <T>(read: () => T, options: { timeout?: number } = {}) => expect.poll(read, { timeout: 20_000, ...options });

/**
 * Sign-in is limited per client address (10/60 s) in the Redis that every test file shares, and the
 * auth tests spend that limit on purpose. So a studio file's api trusts X-Forwarded-For
 * (`studioApiEnv`) and its browser presents an address of its own (`ownClientAddress`), as
 * browsers behind a proxy do in production.
 */
export const studioApiEnv = { TRUST_PROXY: 'true' };
export function ownClientAddress(): Record<string, string> {
  const [a, b] = randomUUID().split('-');
  return { 'x-forwarded-for': `2001:db8::${a!.slice(0, 4)}:${b}` };
}

/** A signed-out browser tab whose console errors, page errors, failed requests and HTTP errors are collected. */
export interface StudioTab {
  context: BrowserContext;
  page: Page;
}

export interface Studio {
  api: TestApi;
  /** the legacy full-admin key of this api, for seeding and for checking what the studio did */
  legacyKey: string;
  browser: Browser;
  /** what went wrong in any tab of this file; the file's last test expects it empty */
  problems: string[];
  /** a new tab (own cookies) at the desktop size, guarded like every other */
  openTab(): Promise<StudioTab>;
  /** a new tab signed in, through the sign-in form, as a new full-admin named after `name` (its account in `admin`) */
  openAdminTab(name: string): Promise<StudioTab & { admin: { email: string; password: string } }>;
  close(): Promise<void>;
}

/**
 * A real api (PostgreSQL, Redis, Temporal worker, SES emulator) on a free port with the studio
 * built, and headless Chromium; `env` goes on top of the integration environment (`apiOptions`: the api's deps, such as a delivery policy). The api's
 * origin is its own AUTH_URL, so cookie-authenticated writes from the studio pass the CSRF
 * origin check.
 */
export async function startStudio(env: Record<string, string> = {}, apiOptions: Parameters<typeof startTestApi>[1] = {}): Promise<Studio> {
  // a fresh clone has no dist/: build it (cached by a hash of the sources)
  await buildStudioIfStale();
  mkdirSync(SCREENSHOTS, { recursive: true });
  console.log(`[studio test] screenshots in ${SCREENSHOTS}`);
  const legacyKey = `studio-test-legacy-key-${randomUUID()}`;
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const api = await startTestApi(
    { ...studioApiEnv, ...env, PORT: String(port), API_PUBLIC_URL: origin, AUTH_URL: origin, ADMIN_API_KEY: legacyKey },
    apiOptions,
  );
  const clientAddress = ownClientAddress();
  const browser = await launchChromium();
  const problems: string[] = [];
  const contexts: BrowserContext[] = [];

  async function openTab(): Promise<StudioTab> {
    const context = await browser.newContext({ viewport: viewports.desktop, baseURL: origin, extraHTTPHeaders: clientAddress });
    contexts.push(context);
    const page = await context.newPage();
    page.on('console', (message) => {
      // axe injects itself into every frame; the email iframes' empty sandbox rightly refuses it
      if (message.text().startsWith("Blocked script execution in 'about:srcdoc'")) return;
      if (message.type() === 'error') problems.push(`console error on ${page.url()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error on ${page.url()}: ${error.message}`));
    // net::ERR_ABORTED is a fetch cut short by navigating away, not a failure of the studio
    page.on('requestfailed', (request) => {
      const reason = request.failure()?.errorText;
      if (reason !== 'net::ERR_ABORTED') problems.push(`request failed: ${request.method()} ${request.url()} ${reason}`);
    });
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.request().method()} ${response.url()}`);
    });
    return { context, page };
  }

  async function openAdminTab(name: string) {
    const admin = await createTestAdmin(api, name);
    const tab = await openTab();
    await signIn(tab.page, admin);
    return { ...tab, admin };
  }

  return {
    api,
    legacyKey,
    browser,
    problems,
    openTab,
    openAdminTab,
    async close() {
      for (const context of contexts) await context.close();
      await browser.close();
      await api.close();
    },
  };
}

/**
 * What is wider than its frame on the page: every table region (DataTable's lists and the hand-made
 * tables alike) by accessible name, and the page itself, which would scroll sideways as a whole.
 */
function widerThanTheirFrame(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const wide = Array.from(document.querySelectorAll<HTMLElement>('.table-wrap'))
      .filter((frame) => frame.scrollWidth > frame.clientWidth + 1)
      .map((frame) => `${frame.getAttribute('aria-label') ?? '?'}: ${frame.scrollWidth} px in ${frame.clientWidth}`);
    // a table outside a region is as wide as its content: it must fit what holds it
    for (const table of Array.from(document.querySelectorAll<HTMLElement>('table'))) {
      const holder = table.parentElement;
      if (table.closest('.table-wrap') === null && holder !== null && table.offsetWidth > holder.clientWidth + 1)
        wide.push(`${table.getAttribute('aria-label') ?? '?'}: ${table.offsetWidth} px in ${holder.clientWidth}`);
    }
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth + 1) {
      // named by the innermost elements that reach past the right edge, so a failure says what to fix
      const past = Array.from(document.body.querySelectorAll<HTMLElement>('*')).filter(
        (element) => element.getBoundingClientRect().right > root.clientWidth + 1,
      );
      const innermost = past.filter((element) => !past.some((other) => other !== element && element.contains(other)));
      const names = innermost
        .slice(0, 3)
        .map((element) => `${element.tagName.toLowerCase()}${element.className === '' ? '' : `.${String(element.className).split(' ').join('.')}`}`);
      wide.push(`the page: ${root.scrollWidth} px in ${root.clientWidth} (${names.join(', ')})`);
    }
    return wide;
  });
}

/**
 * One h1 naming the page, a document title, no serious axe violation, nothing scrolling sideways on a
 * phone, and both screenshots.
 */
export async function checkPage(page: Page, name: string, heading: string | RegExp): Promise<void> {
  await expectPage(page.getByRole('heading', { level: 1 })).toHaveCount(1);
  await expectPage(page.getByRole('heading', { level: 1 })).toHaveText(heading);
  // loading skeletons gone
  await expectPage(page.locator('[aria-busy="true"]')).toHaveCount(0);
  await expectPage(page).toHaveTitle(/· Waymark Studio$/);
  // email HTML in the sandboxed iframes is the templates' business (and refuses axe's script)
  const axe = await new AxeBuilder({ page }).exclude('iframe').analyze();
  const serious = axe.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  expect(serious.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`)).toEqual([]);
  for (const [size, viewport] of Object.entries(viewports)) {
    await page.setViewportSize(viewport);
    // on a phone a table stacks its rows into cards instead of scrolling sideways, and nothing widens the page
    if (size === 'phone') await poll(() => widerThanTheirFrame(page)).toEqual([]);
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-${size}.png`), fullPage: true });
  }
  await page.setViewportSize(viewports.desktop);
  // Headless Chromium once stopped rendering frames right after this check (a clean-clone run,
  // segments): a click then waited for ever for its button to be "stable", which takes two
  // animation frames, in that test and the next. Bringing the page to the front has the browser
  // paint it again; if frames still do not come, this fails here with that cause, not 30 s later
  // on a click.
  await page.bringToFront();
  await page.evaluate(
    () =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('the page renders no animation frames')), 10_000);
        requestAnimationFrame(() =>
          requestAnimationFrame(() => {
            clearTimeout(timer);
            resolve();
          }),
        );
      }),
  );
}

/** Signs in through the sign-in form and waits for the overview. */
export async function signIn(page: Page, account: { email: string; password: string }): Promise<void> {
  await page.goto('/studio/sign-in?next=/studio');
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  // the sign-in URL itself ends in "next=/studio": wait for the overview's path
  await page.waitForURL((url) => url.pathname === '/studio');
}
