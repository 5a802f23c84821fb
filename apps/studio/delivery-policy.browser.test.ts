import type { Page } from 'playwright-core';
import { expectPage } from '../../test/browser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPage, poll, startStudio, type Studio } from './test/studio-fixture';

/**
 * The delivery policy page in Chromium against a real api: the installation's policy
 * (journeys/delivery-policy.ts) read-only, with its source file named. Fails on any console
 * error, failed request, or serious/critical axe violation; screenshots: test-results/studio/.
 */
describe('Studio delivery policy in Chromium', () => {
  let studio: Studio;
  let page: Page;

  beforeAll(async () => {
    studio = await startStudio();
    ({ page } = await studio.openAdminTab('delivery-policy'));
  });

  afterAll(() => studio?.close());

  it('shows the caps, the exempt categories and the default quiet hours, naming the file, with nothing to change', async () => {
    await page.getByRole('link', { name: 'Delivery policy' }).click();
    await page.waitForURL((url) => url.pathname === '/studio/settings/delivery-policy');
    await checkPage(page, 'delivery-policy', 'Delivery policy');
    const policy = (await studio.api.request('GET', '/v1/admin/delivery-policy', { token: studio.legacyKey })).body.policy;
    await expectPage(page.locator('.page-header code')).toHaveText('journeys/delivery-policy.ts');
    const caps = page.getByRole('table', { name: 'Frequency caps' });
    await expectPage(caps.getByRole('row')).toHaveCount(policy.caps.length + 1);
    for (const cap of policy.caps)
      await poll(() =>
        caps
          .getByRole('row')
          .filter({ hasText: `${cap.max} per ${cap.per}` })
          .count(),
      ).toBe(1);
    const exempt = page.getByRole('list', { name: 'Exempt categories' });
    await expectPage(exempt.getByRole('listitem')).toHaveText(policy.exempt);
    // this deployment's policy holds nobody out
    expect(policy.holdout).toBeNull();
    await expectPage(page.getByTestId('program-holdout')).toHaveText('None: everyone may get every category.');
    // read-only: the policy changes in code
    await expectPage(page.getByRole('main').getByRole('button')).toHaveCount(0);
    await expectPage(page.getByRole('main').getByRole('textbox')).toHaveCount(0);
  });

  it('saw no console error and no failed request', () => {
    expect(studio.problems).toEqual([]);
  });
});
