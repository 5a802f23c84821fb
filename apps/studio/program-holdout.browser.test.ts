import { sql } from 'kysely';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryPolicy } from '@waymark/journey';
import { expectPage } from '../../test/browser';
import { checkPage, startStudio, type Studio } from './test/studio-fixture';

/**
 * The Delivery policy page under a policy with a program holdout (30 % of everyone out of
 * `journey` email), in Chromium against a real api: per journey with a goal, the program's lift in
 * words and both arms, the numbers of GET /v1/admin/delivery-policy/holdout/outcomes. Fails on any
 * console error, failed request, or serious/critical axe violation; screenshots: test-results/studio/.
 */
describe('Studio delivery policy: the program holdout measured, in Chromium', () => {
  const policy: DeliveryPolicy = { caps: [], exempt: [], holdout: { percent: 30, categories: ['journey'] } };
  let studio: Studio;
  let page: Page;

  beforeAll(async () => {
    studio = await startStudio({}, { deliveryPolicy: policy });
    // the counters as entries and conversions leave them (migrations/0280; the real stack's are
    // tested in program-holdout-outcomes.int.test.ts): emailed, 60 people of whom 24 converted;
    // held out by the program, 40 of whom 10 converted. Counters alone, so no other file's
    // first-project numbers move.
    await sql`
      insert into program_holdout_counts (journey_id, holdout, day, shard, enrolled, converted)
      values ('first-project', false, '2025-06-02', 0, 60, 24), ('first-project', true, '2025-06-02', 0, 40, 10)
      on conflict (journey_id, day, holdout, shard) do update
        set enrolled = program_holdout_counts.enrolled + excluded.enrolled, converted = program_holdout_counts.converted + excluded.converted`.execute(
      studio.api.deps.db,
    );
    ({ page } = await studio.openAdminTab('program-holdout'));
  });

  afterAll(() => studio?.close());

  it('shows per journey the lift in words and both arms, as the api counts them', async () => {
    const answer = await studio.api.request('GET', '/v1/admin/delivery-policy/holdout/outcomes', { token: studio.legacyKey });
    expect(answer.status).toBe(200);
    const { arms } = answer.body.journeys.find((journey: { journeyId: string }) => journey.journeyId === 'first-project');
    // at least this test's people (another file's on this database add to both arms)
    expect(arms.treatment.enrolled).toBeGreaterThanOrEqual(60);
    expect(arms.holdout.enrolled).toBeGreaterThanOrEqual(40);

    await page.getByRole('link', { name: 'Delivery policy' }).click();
    await page.waitForURL((url) => url.pathname === '/studio/settings/delivery-policy');
    await expectPage(page.getByTestId('program-holdout')).toHaveText(
      '30 % of people get no journey email from any journey or broadcast, to measure lifecycle email as a whole.',
    );
    const journey = page.getByRole('region', { name: 'first-project' });
    const people = arms.treatment.enrolled + arms.holdout.enrolled;
    await expectPage(journey.getByTestId('program-lift-first-project')).toHaveText(
      new RegExp(
        `^[+−]\\d+\\.\\d points, between [+−]\\d+\\.\\d and [+−]\\d+\\.\\d with 95 % confidence; ${people.toLocaleString()} people \\(${arms.holdout.enrolled.toLocaleString()} held out\\)$`,
      ),
    );
    await expectPage(journey.getByText('Goal: project.published within 14 days of entry.')).toBeVisible();
    const table = journey.getByRole('table', { name: 'Outcomes per arm' });
    const cells = (arm: { enrolled: number; converted: number; conversionRate: number }) => [
      arm.enrolled.toLocaleString(),
      arm.converted.toLocaleString(),
      `${(arm.conversionRate * 100).toFixed(1)} %`,
    ];
    await expectPage(table.getByRole('row', { name: /^With the emails/ }).getByRole('cell')).toHaveText([...cells(arms.treatment), '0']);
    await expectPage(table.getByRole('row', { name: /^Held out/ }).getByRole('cell')).toHaveText([...cells(arms.holdout), '0']);
    await expectPage(journey.getByRole('link', { name: 'first-project' })).toHaveAttribute('href', '/studio/journeys/first-project');
    await checkPage(page, 'delivery-policy-program-holdout', 'Delivery policy');
  });

  it('saw no console error and no failed request', () => {
    expect(studio.problems).toEqual([]);
  });
});
