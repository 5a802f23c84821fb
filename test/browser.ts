import { expect as playwrightExpect } from '@playwright/test';
import { chromium, type Browser } from 'playwright-core';

/** Debian's chromium, headless, with the flags this machine needs (HELPERS: no sandbox, no GPU). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

/**
 * Playwright's web-first assertions (`await expectPage(locator).toHaveText(…)`), which retry until
 * the page shows what they assert: a page read once right after a navigation races its render. The
 * deadline is for two busy cores, where a lazy page chunk can take seconds to arrive.
 */
export const expectPage = playwrightExpect.configure({ timeout: 20_000 });
