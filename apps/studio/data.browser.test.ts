import { randomUUID } from 'node:crypto';
import { expectPage } from '../../test/browser';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../test/eventually';
import type { TestApi } from '../../test/test-api';
import { checkPage as checkStudioPage, poll, startStudio, type Studio } from './test/studio-fixture';

/**
 * The studio's data views in Chromium against a real api and worker: a contact's list
 * memberships (add one, remove one), an event's journeys (the run it started, the run another
 * event exited), the quarantined events (banner, filter, violations) and the contact's explain card
 * (a sent step, a journey never triggered), with no console error, failed request or serious axe
 * violation, and screenshots in test-results/studio/ (data-*.png).
 */
describe('Waymark Studio data views in Chromium', () => {
  let studio: Studio;
  let api: TestApi;
  let LEGACY: string;
  let page: Page;
  const run = randomUUID().slice(0, 8);
  const userId = `studio-data-${run}`;
  const lists = { kept: `kept-${run}`, removed: `removed-${run}`, added: `added-${run}` };

  const membershipsOf = async () =>
    ((await api.request('GET', `/v1/admin/contacts/${userId}/lists`, { token: LEGACY })).body.lists as { key: string; subscribed: boolean }[])
      .map((list) => list.key)
      .sort();

  beforeAll(async () => {
    studio = await startStudio();
    ({ api, legacyKey: LEGACY } = studio);

    // a product signs the user up (starting the welcome series) and puts them on two lists
    const signedUp = await api.request('POST', '/v1/events', {
      token: LEGACY,
      body: { name: 'user.signed_up', userId, email: `${userId}@waymark-test.example`, lists: { [lists.kept]: true, [lists.removed]: true } },
    });
    expect(signedUp.status).toBe(202);
    await eventually(
      async () =>
        (await api.request('GET', `/v1/admin/journeys/welcome-series/states?userId=${userId}&status=waiting`, { token: LEGACY })).body.total as number,
      (total) => total > 0,
      { what: 'the welcome series started and waiting for the seeded user', timeoutMs: 60_000 },
    );

    ({ page } = await studio.openAdminTab('studio-data'));
  });

  afterAll(async () => {
    await studio?.close();
  });

  /** One h1 naming the page, a document title, no serious axe violation, and both screenshots. */
  // the shared page check (one h1, title, no skeleton, axe, screenshots), named data-* here
  const checkPage = (name: string, heading: string | RegExp) => checkStudioPage(page, `data-${name}`, heading);

  it("adds a contact to a list and removes it from another on the contact's page", async () => {
    await page.goto(`/studio/contacts/${userId}`);
    const memberships = page.getByRole('table', { name: 'List memberships' });
    await expectPage(memberships.getByRole('row').filter({ hasText: lists.removed })).toHaveCount(1);
    await checkPage('contact-lists', `${userId}@waymark-test.example`);

    await page.getByLabel('List key').fill(lists.added);
    await page.getByRole('button', { name: 'Add to list' }).click();
    await poll(membershipsOf).toEqual([lists.added, lists.kept, lists.removed].sort());
    await expectPage(memberships.getByRole('row').filter({ hasText: lists.added })).toHaveCount(1);

    await page.getByRole('button', { name: `Remove from ${lists.removed}` }).click();
    await poll(membershipsOf).toEqual([lists.added, lists.kept].sort());
    await expectPage(memberships.getByRole('row').filter({ hasText: lists.removed })).toHaveCount(0);
    const audit = await api.deps.db.selectFrom('auditLogs').select('detail').where('resource', '=', 'contact').where('action', '=', 'update').execute();
    expect(audit.map((row) => row.detail)).toEqual(
      expect.arrayContaining([
        { list: lists.added, subscribed: true },
        { list: lists.removed, removed: true },
      ]),
    );
  });

  it("shows the journeys an event started and exited, linked to the enrollment's log", async () => {
    // the user deletes their account: welcome-series exits on user.deleted
    const deleted = await api.request('POST', '/v1/events', { token: LEGACY, body: { name: 'user.deleted', userId } });
    expect(deleted.body.exits).toEqual([expect.objectContaining({ journeyId: 'welcome-series', exited: true })]);

    await page.goto(`/studio/events?userId=${userId}&event=user.signed_up`);
    await page.getByRole('button', { name: 'user.signed_up' }).click();
    const started = page.getByRole('list', { name: 'Journeys of this event' }).getByRole('listitem');
    await expectPage(started).toHaveText(/Started Welcome series at start/);
    await expectPage(started).toHaveText(/exited/);
    await checkPage('event-journeys', 'Events');

    await page.goto(`/studio/events?userId=${userId}&event=user.deleted`);
    await page.getByRole('button', { name: 'user.deleted' }).click();
    const exited = page.getByRole('list', { name: 'Journeys of this event' }).getByRole('listitem');
    await expectPage(exited).toHaveText(/Exited Welcome series at sleep:2 days/);

    // the enrollment link opens the journey filtered to this user, with that run's log open
    await exited.getByRole('link', { name: 'enrollment' }).click();
    await page.waitForURL(/\/studio\/journeys\/welcome-series\?.*state=/);
    await expectPage(page.getByRole('row').filter({ hasText: userId })).toHaveCount(1);
    await expectPage(page.getByRole('button', { name: 'Log', expanded: true })).toHaveCount(1);
    await checkPage('event-journey-state', 'Welcome series');
  });

  it("tells on the contact's page why they did and did not get a journey's emails", async () => {
    // runs after the exit above: the welcome email was sent, then user.deleted ended the run
    await page.goto(`/studio/contacts/${userId}?explain=welcome-series`);
    const story = page.getByRole('group', { name: 'How Welcome series went for this contact' });
    const steps = story.getByRole('list', { name: 'Steps of enrollment 1' }).getByRole('listitem');
    await expectPage(steps.filter({ hasText: /welcome\s*welcome\s*sent/ })).toHaveCount(1);
    await expectPage(steps.filter({ hasText: /exited\s*by user\.deleted at/ })).toHaveCount(1);
    await expectPage(story.getByRole('list', { name: 'Trigger events (user.signed_up)' })).toHaveText(/user\.signed_up\s*entered/);
    await checkPage('contact-explain', `${userId}@waymark-test.example`);

    // a template the run never reached, chosen from the form: the choice is part of the URL
    await page.getByLabel('Template (optional)').selectOption('welcome-tips');
    await page.waitForURL(/explain=welcome-series.*template=welcome-tips|template=welcome-tips.*explain=welcome-series/);
    await expectPage(story).toHaveText(/Template welcome-tips: not sent: the run did not reach it \(exited by user\.deleted at/);

    // a journey this person never triggered says so instead of showing steps
    await page.getByLabel('Template (optional)').selectOption('');
    await page.getByRole('combobox', { name: /^Journey/ }).selectOption('payment-recovery');
    await page.waitForURL(/explain=payment-recovery/);
    const other = page.getByRole('group', { name: 'How Payment recovery went for this contact' });
    await expectPage(other).toHaveText(/Not enrolled: trigger event never received \(payment\.failed\)/);
    await expectPage(other.getByRole('list')).toHaveCount(0);
    await checkPage('contact-explain-not-enrolled', `${userId}@waymark-test.example`);
  });

  it('shows quarantined events: a banner with their count, the filter, the badge and the violations', async () => {
    const quarantinedUser = `${userId}-quarantined`;
    const sent = await api.request('POST', '/v1/events', {
      token: LEGACY,
      body: { name: 'user.signed_up', userId: quarantinedUser, eventProperties: { plan: 'gold' } },
    });
    expect(sent.body).toMatchObject({ quarantined: true });
    await page.goto(`/studio/events?userId=${quarantinedUser}`);
    const banner = page.getByRole('status').filter({ hasText: 'quarantined' });
    await expectPage(banner).toHaveText(/\d+ event\(s\) quarantined/);
    await banner.getByRole('button', { name: 'Show quarantined events' }).click();
    await page.waitForURL(/quarantined=true/);
    await expectPage(page.getByRole('checkbox', { name: 'Quarantined only' })).toBeChecked();
    await page.getByRole('button', { name: 'user.signed_up' }).click();
    await expectPage(page.getByRole('list', { name: 'Catalog violations' })).toHaveText(/^plan: /);
    await checkPage('events-quarantined', 'Events');
  });

  it('saw no console error and no failed request', () => {
    expect(studio.problems).toEqual([]);
  });
});
