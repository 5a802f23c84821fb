import { randomUUID } from 'node:crypto';
import { expectPage } from '../../test/browser';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../../test/test-api';
import { checkPage as checkStudioPage, poll, startStudio, type Studio } from './test/studio-fixture';

/**
 * Building a segment in Chromium against a real api: pick leaves, watch the live count follow,
 * see the JSON beside the builder, save it (the API holds exactly the tree built), find it in the
 * list with its count, and delete it; no console error, failed request or serious axe violation,
 * screenshots segments-*.png in test-results/studio/.
 */
describe('Waymark Studio segments in Chromium', () => {
  let studio: Studio;
  let api: TestApi;
  let LEGACY: string;
  let page: Page;
  const run = randomUUID().slice(0, 8);
  const plan = `pro-${run}`;
  // ada and bob are on the plan, only ada started two sessions; cy is on another plan
  const people = { ada: `seg-ada-${run}`, bob: `seg-bob-${run}`, cy: `seg-cy-${run}` };

  const checkPage = (name: string, heading: string | RegExp) => checkStudioPage(page, `segments-${name}`, heading);
  const count = () => page.getByTestId('segment-count').textContent();
  const leaf = (legend: string): Locator => page.getByRole('group', { name: legend });
  const add = async (kind: string) => {
    await page.getByLabel('Add to “all of these”').selectOption({ label: kind });
    await page.getByRole('button', { name: 'Add', exact: true }).click();
  };

  beforeAll(async () => {
    studio = await startStudio();
    ({ api, legacyKey: LEGACY } = studio);
    const seeds: [string, string][] = [
      [people.ada, plan],
      [people.ada, plan],
      [people.bob, plan],
      [people.cy, `free-${run}`],
    ];
    for (const [userId, value] of seeds) {
      const sent = await api.request('POST', '/v1/events', {
        token: LEGACY,
        body: { name: 'session.started', userId, email: `${userId}@waymark-test.example`, contactProperties: { plan: value } },
      });
      expect(sent.status).toBe(202);
    }
    ({ page } = await studio.openAdminTab('studio-segments'));
  });

  afterAll(async () => {
    await studio?.close();
  });

  it('builds a segment from leaves, following the live count, and saves exactly that tree', async () => {
    await page.goto('/studio/segments');
    await page.getByRole('link', { name: 'New segment' }).click();
    await page.waitForURL(/\/studio\/segments\/new$/);
    // an empty "all": everyone
    await poll(async () => Number((await count())?.replace(/\D/g, ''))).toBeGreaterThanOrEqual(3);

    await add('Contact property');
    await expectPage(page.getByText('To count, finish the condition at conditions.all[0]: name the property')).toHaveCount(1);
    await leaf('Contact property').getByLabel('Property', { exact: true }).fill('plan');
    await leaf('Contact property').getByLabel('Value', { exact: true }).fill(plan);
    await poll(count).toBe('2');
    await expectPage(page.getByRole('table', { name: 'Sample of matching contacts' }).getByRole('row')).toHaveCount(3);

    await add('Performed an event');
    const event = leaf('Performed an event');
    await event.getByLabel('Event', { exact: true }).fill('session.started');
    await event.getByLabel('At least (times)').fill('2');
    await event.getByLabel('Within the last').fill('7');
    await poll(count).toBe('1');
    const sample = page.getByRole('table', { name: 'Sample of matching contacts' });
    await poll(() => sample.getByRole('link').allTextContents()).toEqual([people.ada]);

    // the JSON beside the builder is the tree the API gets
    const expected = {
      all: [
        { type: 'property', property: 'plan', operator: 'eq', value: plan },
        { type: 'event', event: 'session.started', within: '7d', minCount: 2 },
      ],
    };
    await poll(async () => JSON.parse(await page.getByRole('textbox', { name: 'Conditions as JSON' }).inputValue())).toEqual(expected);
    await checkPage('new', 'New segment');

    await page.getByLabel('Name').fill(`Busy ${plan}`);
    await page.getByRole('button', { name: 'Save segment' }).click();
    await page.waitForURL(/\/studio\/segments\/[0-9a-f-]{36}$/);
    const id = page.url().split('/').pop()!;
    const saved = await api.request('GET', `/v1/admin/segments/${id}`, { token: LEGACY });
    expect(saved.body.segment).toMatchObject({ name: `Busy ${plan}`, conditions: expected, count: 1 });
    await expectPage(page.getByRole('heading', { level: 1 })).toHaveText(`Busy ${plan}`);
    await checkPage('detail', `Busy ${plan}`);
  });

  it('edits the tree as JSON and in groups: a not group and an any', async () => {
    const id = page.url().split('/').pop()!;
    // a new tree typed as JSON, then loaded into the builder
    const json = page.getByRole('textbox', { name: 'Conditions as JSON' });
    await json.fill(JSON.stringify({ any: [{ type: 'property', property: 'plan', operator: 'in', value: [plan, `free-${run}`] }] }));
    await page.getByRole('button', { name: 'Load into the builder' }).click();
    await poll(count).toBe('3');
    await poll(() => leaf('Contact property').getByLabel('Values (comma-separated)').inputValue()).toBe(`${plan}, free-${run}`);

    await page.getByLabel('Add to “any of these”').selectOption({ label: 'Not (group)' });
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    // "not" of an empty "all" (everyone) is nobody: one more alternative of the "any" adds no one
    await poll(count).toBe('3');
    await page
      .getByRole('combobox', { name: /^Match/ })
      .first()
      .selectOption('all');
    // as "all", the same two conditions leave nobody
    await poll(count).toBe('0');
    await expectPage(page.getByText('Nobody matches these conditions yet.')).toHaveCount(1);
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expectPage(page.getByRole('status').filter({ hasText: 'Saved.' })).toHaveCount(1);
    const saved = await api.request('GET', `/v1/admin/segments/${id}`, { token: LEGACY });
    expect(saved.body.segment.conditions).toEqual({
      all: [{ type: 'property', property: 'plan', operator: 'in', value: [plan, `free-${run}`] }, { not: { all: [] } }],
    });
  });

  it('lists the segment with its count and deletes it', async () => {
    await page.goto('/studio/segments');
    const row = page.getByRole('row').filter({ hasText: `Busy ${plan}` });
    await expectPage(row).toHaveCount(1);
    await checkPage('list', 'Segments');
    await row.getByRole('link').click();
    await page.getByRole('button', { name: 'Delete segment' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete segment' }).click();
    await page.waitForURL((url) => url.pathname === '/studio/segments');
    await poll(() =>
      page
        .getByRole('row')
        .filter({ hasText: `Busy ${plan}` })
        .count(),
    ).toBe(0);
    const list = await api.request('GET', '/v1/admin/segments?limit=100', { token: LEGACY });
    expect((list.body.segments as { name: string }[]).map((segment) => segment.name)).not.toContain(`Busy ${plan}`);
  });

  it('saw no console error and no failed request', () => {
    expect(studio.problems).toEqual([]);
  });
});
