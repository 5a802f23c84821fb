import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildStudioIfStale } from '../../scripts/studio-build';
import { createTestAdmin } from '../../test/auth-client';
import { launchChromium } from '../../test/browser';
import { eventually } from '../../test/eventually';
import { freePort } from '../../test/free-port';
import { startTestApi, type TestApi } from '../../test/test-api';
import { checkPage as checkStudioPage, ownClientAddress, poll, SCREENSHOTS, studioApiEnv, viewports } from './test/studio-fixture';

const LEGACY = `studio-data-legacy-key-${randomUUID()}`;

/**
 * The studio's data views in Chromium against a real api and worker: a contact's list
 * memberships (add one, remove one), an event's journeys (the run it started, the run another
 * event exited) and the contact's explain card (a sent step, a journey never triggered), with no
 * console error, failed request or serious axe violation, and screenshots in test-results/studio/
 * (data-*.png).
 */
describe('Waymark Studio data views in Chromium', () => {
  let api: TestApi;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const problems: string[] = [];
  const run = randomUUID().slice(0, 8);
  const userId = `studio-data-${run}`;
  const lists = { kept: `kept-${run}`, removed: `removed-${run}`, added: `added-${run}` };

  const membershipsOf = async () =>
    ((await api.request('GET', `/v1/admin/contacts/${userId}/lists`, { token: LEGACY })).body.lists as { key: string; subscribed: boolean }[])
      .map((list) => list.key)
      .sort();

  beforeAll(async () => {
    await buildStudioIfStale();
    mkdirSync(SCREENSHOTS, { recursive: true });
    console.log(`[studio data test] screenshots in ${SCREENSHOTS}`);
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    api = await startTestApi({ ...studioApiEnv, PORT: String(port), API_PUBLIC_URL: origin, AUTH_URL: origin, ADMIN_API_KEY: LEGACY });
    browser = await launchChromium();

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

    context = await browser.newContext({ viewport: viewports.desktop, baseURL: origin, extraHTTPHeaders: ownClientAddress() });
    page = await context.newPage();
    page.on('console', (message) => {
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

    const admin = await createTestAdmin(api, 'studio-data');
    await page.goto('/studio/sign-in?next=/studio');
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill(admin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // the sign-in URL itself ends in ?next=/studio: wait for the overview, not for the URL
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor({ timeout: 30_000 });
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await api?.close();
  });

  /** One h1 naming the page, a document title, no serious axe violation, and both screenshots. */
  // the shared page check (one h1, title, no skeleton, axe, screenshots), named data-* here
  const checkPage = (name: string, heading: string | RegExp) => checkStudioPage(page, `data-${name}`, heading);

  it("adds a contact to a list and removes it from another on the contact's page", async () => {
    await page.goto(`/studio/contacts/${userId}`);
    const memberships = page.getByRole('table', { name: 'List memberships' });
    await poll(() => memberships.getByRole('row').filter({ hasText: lists.removed }).count()).toBe(1);
    await checkPage('contact-lists', `${userId}@waymark-test.example`);

    await page.getByLabel('List key').fill(lists.added);
    await page.getByRole('button', { name: 'Add to list' }).click();
    await poll(membershipsOf).toEqual([lists.added, lists.kept, lists.removed].sort());
    await poll(() => memberships.getByRole('row').filter({ hasText: lists.added }).count()).toBe(1);

    await page.getByRole('button', { name: `Remove from ${lists.removed}` }).click();
    await poll(membershipsOf).toEqual([lists.added, lists.kept].sort());
    await poll(() => memberships.getByRole('row').filter({ hasText: lists.removed }).count()).toBe(0);
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
    await poll(() => started.textContent()).toMatch(/Started Welcome series at start/);
    await poll(() => started.textContent()).toMatch(/exited/);
    await checkPage('event-journeys', 'Events');

    await page.goto(`/studio/events?userId=${userId}&event=user.deleted`);
    await page.getByRole('button', { name: 'user.deleted' }).click();
    const exited = page.getByRole('list', { name: 'Journeys of this event' }).getByRole('listitem');
    await poll(() => exited.textContent()).toMatch(/Exited Welcome series at sleep:2 days/);

    // the enrollment link opens the journey filtered to this user, with that run's log open
    await exited.getByRole('link', { name: 'enrollment' }).click();
    await page.waitForURL(/\/studio\/journeys\/welcome-series\?.*state=/);
    await poll(() => page.getByRole('row').filter({ hasText: userId }).count()).toBe(1);
    await poll(() => page.getByRole('button', { name: 'Log', expanded: true }).count()).toBe(1);
    await checkPage('event-journey-state', 'Welcome series');
  });

  it("tells on the contact's page why they did and did not get a journey's emails", async () => {
    // runs after the exit above: the welcome email was sent, then user.deleted ended the run
    await page.goto(`/studio/contacts/${userId}?explain=welcome-series`);
    const story = page.getByRole('group', { name: 'How Welcome series went for this contact' });
    const steps = story.getByRole('list', { name: 'Steps of enrollment 1' }).getByRole('listitem');
    await poll(() => steps.filter({ hasText: /welcome\s*welcome\s*sent/ }).count()).toBe(1);
    await poll(() => steps.filter({ hasText: /exited\s*by user\.deleted at/ }).count()).toBe(1);
    await poll(() => story.getByRole('list', { name: 'Trigger events (user.signed_up)' }).textContent()).toMatch(/user\.signed_up\s*entered/);
    await checkPage('contact-explain', `${userId}@waymark-test.example`);

    // a template the run never reached, chosen from the form: the choice is part of the URL
    await page.getByLabel('Template (optional)').selectOption('welcome-tips');
    await page.waitForURL(/explain=welcome-series.*template=welcome-tips|template=welcome-tips.*explain=welcome-series/);
    await poll(() => story.textContent()).toMatch(/Template welcome-tips: not sent: the run did not reach it \(exited by user\.deleted at/);

    // a journey this person never triggered says so instead of showing steps
    await page.getByLabel('Template (optional)').selectOption('');
    await page.getByRole('combobox', { name: /^Journey/ }).selectOption('payment-recovery');
    await page.waitForURL(/explain=payment-recovery/);
    const other = page.getByRole('group', { name: 'How Payment recovery went for this contact' });
    await poll(() => other.textContent()).toMatch(/Not enrolled: trigger event never received \(payment\.failed\)/);
    expect(await other.getByRole('list').count()).toBe(0);
    await checkPage('contact-explain-not-enrolled', `${userId}@waymark-test.example`);
  });

  it('saw no console error and no failed request', () => {
    expect(problems).toEqual([]);
  });
});
