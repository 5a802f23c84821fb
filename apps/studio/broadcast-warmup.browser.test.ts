import { randomUUID } from 'node:crypto';
import type { Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, it, expect as check } from 'vitest';
import { expectPage } from '../../test/browser';
import { checkPage, startStudio, type Studio } from './test/studio-fixture';

/**
 * A broadcast slowed by the sending domain's warm-up (docs/email.md, "Warm-up") in Chromium
 * against a real api: the page says until when its next recipients wait, in the reader's time,
 * and stops saying it once the broadcast is no longer sending. Then why it is paused: by an admin,
 * or by the reputation breaker (docs/email.md, "Reputation breaker"), which resumes it itself. The
 * broadcast row is written here, as a chunk that found today's allowance spent (or the breaker
 * holding a recipient) leaves it.
 */
describe('Studio broadcast warm-up deferral and pause reason in Chromium', () => {
  let studio: Studio;
  let page: Page;
  let id: string;
  const name = `Warm-up ${randomUUID().slice(0, 8)}`;
  const warmupUntil = new Date('2026-12-01T00:00:00Z');

  beforeAll(async () => {
    // a cooldown away from its default (6), so the notice can only have it from the api
    studio = await startStudio({ REPUTATION_COOLDOWN_HOURS: '9' });
    const broadcast = await studio.api.deps.db
      .insertInto('broadcasts')
      .values({
        name,
        templateKey: 'reengage-we-miss-you',
        category: 'newsletter',
        audience: JSON.stringify({ all: true }),
        data: JSON.stringify({ productName: 'Atlas' }),
        status: 'sending',
        audienceSize: 0,
        startedAt: new Date(),
        warmupUntil,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    id = broadcast.id;
    ({ page } = await studio.openAdminTab('studio-broadcast-warmup'));
  });

  afterAll(async () => {
    await studio?.close();
  });

  it('says the warm-up holds the next recipients until the next allowance, in the reader’s time, axe-clean', async () => {
    await page.goto(`/studio/broadcasts/${id}`);
    // the time as this browser writes it (its locale and time zone), as the page does
    const local = await page.evaluate(
      (iso) => new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso)),
      warmupUntil.toISOString(),
    );
    const notice = page.getByTestId('broadcast-warmup');
    await expectPage(notice).toHaveText(
      `Slowed by the sending domain’s warm-up: today’s allowance is used, so the next recipients go out at ${local} (your time). The ramp is in Settings → Deliverability (docs/email.md, “Warm-up”).`,
    );
    await expectPage(notice.getByRole('link', { name: 'Settings → Deliverability' })).toHaveAttribute('href', '/studio/settings/deliverability');
    await checkPage(page, 'broadcast-warmup', name);
  });

  it('says nothing of the warm-up once the broadcast is no longer sending', async () => {
    await studio.api.deps.db.updateTable('broadcasts').set({ status: 'paused' }).where('id', '=', id).execute();
    await page.goto(`/studio/broadcasts/${id}`);
    await expectPage(page.locator('.page-header .badge')).toHaveText('paused');
    await expectPage(page.getByTestId('broadcast-warmup')).toHaveCount(0);
    await expectPage(page.getByTestId('broadcast-paused')).toHaveText('Paused by an admin: nothing more is sent until it is resumed.');
  });

  it('says the reputation breaker paused it and that it resumes with the breaker after its configured cooldown, axe-clean', async () => {
    await studio.api.deps.db.updateTable('broadcasts').set({ pausedFrom: 'sending', pausedReason: 'reputation' }).where('id', '=', id).execute();
    await page.goto(`/studio/broadcasts/${id}`);
    const notice = page.getByTestId('broadcast-paused');
    await expectPage(notice).toHaveText(
      'Paused by Waymark: the bounce or complaint rate of marketing mail to a mailbox provider some of its recipients use crossed the reputation breaker’s pause threshold. ' +
        'It resumes by itself when the breaker does: once the rates have stayed under the slow thresholds for the breaker’s cooldown (9 hours), or when an admin resumes the breaker. ' +
        'Resume before then pauses it again at the next held recipient. The breaker is in Settings → Deliverability (docs/email.md, “Reputation breaker”).',
    );
    await expectPage(notice.getByRole('link', { name: 'Settings → Deliverability' })).toHaveAttribute('href', '/studio/settings/deliverability');
    await checkPage(page, 'broadcast-paused-reputation', name);
  });

  it('names the cooldown setting while its value loads, and when it cannot be read', async () => {
    const deliverability = '**/v1/admin/deliverability';
    const held: Route[] = [];
    let failing = false;
    await page.route(deliverability, (route) => (failing ? route.abort('aborted') : void held.push(route)));
    await page.goto(`/studio/broadcasts/${id}`);
    const notice = page.getByTestId('broadcast-paused');
    await expectPage(notice).toContainText('for the breaker’s cooldown (REPUTATION_COOLDOWN_HOURS), or when an admin resumes the breaker.');
    // the read fails (a cut connection, which the problems list leaves out as it does a navigation's)
    failing = true;
    const failed = page.waitForEvent('requestfailed', (request) => request.url().endsWith('/v1/admin/deliverability'));
    for (const route of held) await route.abort('aborted');
    await failed;
    await expectPage(notice).toContainText('for the breaker’s cooldown (REPUTATION_COOLDOWN_HOURS), or when an admin resumes the breaker.');
    await page.unroute(deliverability);
  });

  it('shows any other pause reason as it is', async () => {
    await studio.api.deps.db.updateTable('broadcasts').set({ pausedReason: 'maintenance' }).where('id', '=', id).execute();
    await page.goto(`/studio/broadcasts/${id}`);
    await expectPage(page.getByTestId('broadcast-paused')).toHaveText('Paused (reason “maintenance”): nothing more is sent until it is resumed.');
  });

  it('saw no console error and no failed request', () => {
    check(studio.problems).toEqual([]);
  });
});
