import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '@waymark/core/organizations/organizations';
import { hashPassword } from '@waymark/core/users/passwords';
import { insertUser } from '@waymark/core/users/users';
import { expectPage } from '../../test/browser';
import { startFixtureDns } from '../../test/fixture-dns';
import { openScratchDatabase, type ScratchDatabase } from '../../test/scratch-database';
import { checkPage, signIn, startStudio, type Studio } from './test/studio-fixture';

/**
 * The reputation breaker's manual resume on Settings → Deliverability (docs/email.md, "Reputation
 * breaker") in Chromium against a real api: two breakers tripped in the database as the breaker
 * leaves them, a viewer sees them but no way to resume, a full-admin resumes one row and then the
 * rest, each after a confirmation, and reads what was resumed. The api runs on a scratch database
 * of its own, since Resume all resumes every tripped breaker and every broadcast the breaker
 * paused in the database. Fails on any console error, failed request, or serious/critical axe
 * violation (the confirmation dialog open included); screenshots: test-results/studio/.
 */
describe('Studio reputation breaker resume in Chromium', () => {
  let studio: Studio;
  let page: Page;
  let dns: Awaited<ReturnType<typeof startFixtureDns>>;
  let scratch: ScratchDatabase;

  const breakerRow = (on: Page, provider: string) => on.getByRole('table', { name: 'Reputation breaker' }).getByRole('row').filter({ hasText: provider });
  const stateOf = (on: Page, provider: string) => breakerRow(on, provider).getByRole('cell').nth(2);

  beforeAll(async () => {
    scratch = await openScratchDatabase();
    dns = await startFixtureDns({ 'waymark.local': { txt: ['v=spf1 include:amazonses.com ~all'] } });
    studio = await startStudio({ DNS_RESOLVER: dns.address, DATABASE_URL: scratch.url });
    const since = new Date(Date.now() - 3_600_000);
    await studio.api.deps.db
      .insertInto('reputationBreakers')
      .values([
        { sendGroup: 'marketing', provider: 'gmail', state: 'paused', since },
        { sendGroup: 'marketing', provider: 'yahoo', state: 'slowed', since },
      ])
      .execute();
    ({ page } = await studio.openAdminTab('breaker-resume'));
  });

  afterAll(async () => {
    await studio?.close();
    await dns?.close();
    await scratch?.release();
  });

  it('shows a viewer the tripped breakers but no way to resume them', async () => {
    const viewer = { email: `breaker-viewer-${randomUUID().slice(0, 8)}@waymark-test.example`, password: `pw-${randomUUID()}` };
    const user = await insertUser(studio.api.deps.db, {
      email: viewer.email,
      name: null,
      passwordHash: await hashPassword(viewer.password),
      role: 'member',
      accessRole: 'viewer',
    });
    const organization = await studio.api.deps.db.selectFrom('organizations').select('id').orderBy('createdAt').limit(1).executeTakeFirstOrThrow();
    await addMember(studio.api.deps.db, { organizationId: organization.id, userId: user.id });
    const tab = await studio.openTab();
    await signIn(tab.page, viewer);
    await tab.page.goto('/studio/settings/deliverability');
    await expectPage(stateOf(tab.page, 'gmail')).toHaveText('paused');
    await expectPage(tab.page.getByText('Resuming the breaker by hand needs the admin role.')).toBeVisible();
    await expectPage(tab.page.getByRole('button', { name: /^Resume/ })).toHaveCount(0);
    await tab.context.close();
  });

  it('offers a full-admin Resume all and a Resume per tripped row, axe-clean', async () => {
    await page.goto('/studio/settings/deliverability');
    await expectPage(stateOf(page, 'gmail')).toHaveText('paused');
    await expectPage(stateOf(page, 'yahoo')).toHaveText('slowed');
    await expectPage(page.getByRole('button', { name: 'Resume all' })).toBeVisible();
    await expectPage(breakerRow(page, 'gmail').getByRole('button', { name: 'Resume marketing/gmail' })).toBeVisible();
    await expectPage(breakerRow(page, 'yahoo').getByRole('button', { name: 'Resume marketing/yahoo' })).toBeVisible();
    await expectPage(page.getByText('Resuming the breaker by hand needs the admin role.')).toHaveCount(0);
    await checkPage(page, 'deliverability-resume', 'Deliverability');
  });

  it('resumes one breaker after asking, and says what was resumed', async () => {
    await breakerRow(page, 'yahoo').getByRole('button', { name: 'Resume marketing/yahoo' }).click();
    const dialog = page.getByRole('dialog', { name: 'Resume marketing mail to yahoo?' });
    await expectPage(dialog).toBeVisible();
    // the page with its question open passes axe too (and its screenshots show the question)
    await checkPage(page, 'deliverability-resume-confirm', 'Deliverability');
    await expectPage(dialog).toBeVisible();
    // asked, not done: cancelling leaves it slowed
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expectPage(dialog).toBeHidden();
    await expectPage(stateOf(page, 'yahoo')).toHaveText('slowed');
    await breakerRow(page, 'yahoo').getByRole('button', { name: 'Resume marketing/yahoo' }).click();
    await dialog.getByRole('button', { name: 'Resume the breaker' }).click();
    await expectPage(page.getByTestId('breaker-resumed')).toHaveText('Resumed marketing/yahoo (was slowed). No broadcast was paused by it.');
    await expectPage(stateOf(page, 'yahoo')).toHaveText('ok');
    await expectPage(stateOf(page, 'gmail')).toHaveText('paused');
  });

  it('resumes every tripped breaker with Resume all, after asking', async () => {
    await page.getByRole('button', { name: 'Resume all' }).click();
    const dialog = page.getByRole('dialog', { name: 'Resume every tripped breaker?' });
    await expectPage(dialog).toBeVisible();
    await dialog.getByRole('button', { name: 'Resume all breakers' }).click();
    await expectPage(page.getByTestId('breaker-resumed')).toHaveText('Resumed marketing/gmail (was paused). No broadcast was paused by it.');
    await expectPage(stateOf(page, 'gmail')).toHaveText('ok');
    await expectPage(page.getByRole('button', { name: /^Resume/ })).toHaveCount(0);
    // the api agrees, and audited the resumes as the session's
    const { breaker } = (await studio.api.request('GET', '/v1/admin/deliverability', { token: studio.legacyKey })).body as { breaker: { state: string }[] };
    expect(breaker.map((row) => row.state)).toEqual(['ok', 'ok']);
    const audits = await studio.api.deps.db
      .selectFrom('auditLogs')
      .select(['resourceId'])
      .where('resource', '=', 'deliverability')
      .where('action', '=', 'resume')
      .where('actorType', '=', 'user')
      .orderBy('createdAt')
      .execute();
    // the row's resume names its breaker; Resume all names none
    expect(audits.map((row) => row.resourceId)).toEqual(['marketing/yahoo', null]);
  });

  it('saw no console error and no failed request', () => {
    expect(studio.problems).toEqual([]);
  });
});
