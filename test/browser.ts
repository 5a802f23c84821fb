import { chromium, type Browser } from 'playwright-core';

/** Debian's chromium, headless, with the flags this machine needs (HELPERS: no sandbox, no GPU). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}
