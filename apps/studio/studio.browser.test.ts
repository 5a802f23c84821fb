import { randomUUID } from 'node:crypto';
import { expectPage } from '../../test/browser';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { defineJourney } from '@waymark/journey';
import { recordDeadLetter } from '@waymark/core/dlq/dead-letters';
import { createTestAdmin } from '../../test/auth-client';
import { eventually } from '../../test/eventually';
import { registerTestJourneys } from '../../test/journey-registry';
import type { TestApi } from '../../test/test-api';
import { checkPage as checkStudioPage, poll, startStudio, type Studio } from './test/studio-fixture';

/**
 * Waymark Studio in headless Chromium against a real api (PostgreSQL, Redis, Temporal worker,
 * SES emulator): sign in, open every page, perform each mutation once, and fail on any console
 * error, failed request, or serious/critical axe violation. Screenshots: test-results/studio/.
 */
describe('Waymark Studio in Chromium', () => {
  let studio: Studio;
  let api: TestApi;
  let LEGACY: string;
  let page: Page;
  const run = randomUUID().slice(0, 8);
  const userId = `studio-${run}`;
  const seed = { contactId: '', emailId: '', dlqId: '' };
  let signedInEmail = '';

  beforeAll(async () => {
    studio = await startStudio();
    ({ api, legacyKey: LEGACY } = studio);

    // seeded data, through the API as a product would send it
    for (const suffix of ['a', 'b']) {
      const response = await api.request('POST', '/v1/events', {
        token: LEGACY,
        body: { name: 'user.signed_up', userId: `${userId}-${suffix}`, email: `${userId}-${suffix}@waymark-test.example`, contactProperties: { plan: 'pro' } },
      });
      expect(response.status).toBe(202);
    }
    const sent = await api.request('POST', '/v1/emails', {
      token: LEGACY,
      body: { templateKey: 'welcome', to: `${userId}-mail@waymark-test.example`, data: { firstName: 'Ada' }, userId: `${userId}-a` },
    });
    expect(sent.status).toBe(202);
    seed.emailId = sent.body.emailSendId;
    seed.dlqId = await recordDeadLetter(api.deps.db, {
      source: 'webhook',
      sourceId: null,
      payload: { name: 'studio.dlq_retried', userId: `${userId}-a`, eventProperties: { from: 'studio test' } },
      // the run in the error: a pending entry left by an earlier run on the same database is another row
      error: `provider timed out (studio ${run})`,
    });
    const contact = await api.request('GET', `/v1/admin/contacts/${userId}-a`, { token: LEGACY });
    seed.contactId = contact.body.contact.id;
    // the welcome series has started for both users before the studio looks
    await eventually(
      async () => (await api.request('GET', `/v1/admin/journeys/welcome-series/states?userId=${userId}-b`, { token: LEGACY })).body.total as number,
      (total) => total > 0,
      { what: 'the welcome series started for the seeded user' },
    );

    ({ page } = await studio.openTab());
  });

  afterAll(() => studio?.close());

  const checkPage = (name: string, heading: string | RegExp) => checkStudioPage(page, name, heading);

  async function visit(url: string, name: string, heading: string | RegExp) {
    await page.goto(url);
    await checkPage(name, heading);
  }

  it('signs in with email and password', async () => {
    const admin = await createTestAdmin(api, 'studio');
    signedInEmail = admin.email;
    await page.goto('/studio/sign-in?next=/studio');
    await checkPage('sign-in', 'Sign in');
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill(admin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/studio$/);
    await checkPage('overview', 'Overview');
  });

  it('lists journeys and toggles one off and on', async () => {
    // a journey of this test's own: switching off a shipped one would refuse the enrolments of the
    // integration tests running beside this file on the same database
    const own = defineJourney({
      id: `studio-toggle-${run}`,
      name: `Studio toggle ${run}`,
      description: 'switched off and on by the studio test',
      trigger: { event: 'studio.never' },
      async run() {},
    });
    registerTestJourneys(api, [own]);
    try {
      await visit('/studio/journeys', 'journeys', 'Journeys');
      const toggle = page.getByRole('checkbox', { name: own.name });
      const enabled = async () => (await api.request('GET', `/v1/admin/journeys/${own.id}`, { token: LEGACY })).body.journey.enabled;
      // the switch is controlled by the server's answer, so click and watch the API (not uncheck())
      await toggle.click();
      await poll(enabled).toBe(false);
      await expectPage(toggle).not.toBeChecked();
      await toggle.click();
      await poll(enabled).toBe(true);
      await expectPage(toggle).toBeChecked();
    } finally {
      vi.restoreAllMocks();
    }
  });

  it('shows a journey, enrolls a user and cancels an enrollment', async () => {
    await visit('/studio/journeys/welcome-series', 'journey-detail', 'Welcome series');
    // the seeded runs carry this deployment's version, and the page lists it with where they are
    const { version } = (await api.request('GET', '/v1/admin/journeys/welcome-series', { token: LEGACY })).body.journey as { version: string };
    expect(version).toMatch(/^[0-9a-f]{6}$/);
    const versions = page.getByRole('table', { name: 'Running versions' });
    await poll(() =>
      versions
        .getByRole('row')
        .filter({ hasText: `v${version} (this deployment)` })
        .count(),
    ).toBe(1);
    await poll(() => versions.getByText(/\d+ (waiting|active) at /).count()).toBeGreaterThan(0);
    const enrolled = `${userId}-c`;
    await page.getByLabel('User id').fill(enrolled);
    await page.getByLabel('Email', { exact: true }).fill(`${enrolled}@waymark-test.example`);
    await page.getByRole('button', { name: 'Enroll user' }).click();
    await expectPage(page.getByRole('status').filter({ hasText: 'Dispatched' })).toHaveCount(1);

    // cancel the run this test enrolled: other files share the database, and a run of theirs can end
    // between the page's render and the click (the cancel then answers 409)
    await page.goto(`/studio/journeys/welcome-series?status=waiting&userId=${encodeURIComponent(enrolled)}`);
    await poll(() => page.getByRole('button', { name: 'Cancel' }).count(), { timeout: 30_000 }).toBe(1);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('button', { name: 'Cancel enrollment' }).click();
    await expectPage(page.getByRole('dialog')).toHaveCount(0);
    await poll(
      async () =>
        (await api.request('GET', `/v1/admin/journeys/welcome-series/states?status=exited&userId=${encodeURIComponent(enrolled)}`, { token: LEGACY })).body
          .total,
    ).toBe(1);
  });

  it('finds a contact and edits its properties', async () => {
    await page.goto(`/studio/contacts?search=${userId}`);
    await checkPage('contacts', 'Contacts');
    await page.getByRole('link', { name: `${userId}-a` }).click();
    await checkPage('contact-detail', `${userId}-a@waymark-test.example`);
    const editor = page.getByLabel(/Properties \(JSON/);
    await editor.fill('{"plan": "team", "seats": 5}');
    await page.getByRole('button', { name: 'Save properties' }).click();
    await poll(async () => (await api.request('GET', `/v1/admin/contacts/${seed.contactId}`, { token: LEGACY })).body.contact.properties).toMatchObject({
      plan: 'team',
      seats: 5,
    });
  });

  it('shows the default preferences of a contact with none stored (the API answers 404), then turns a category off', async () => {
    const contactId = `${userId}-b`;
    expect(await api.request('GET', `/v1/admin/contacts/${contactId}/preferences`, { token: LEGACY })).toMatchObject({
      status: 404,
      body: { error: 'Preferences not found' },
    });
    await visit(`/studio/contacts/${contactId}`, 'contact-detail', `${contactId}@waymark-test.example`);
    const journeyEmails = page.getByRole('checkbox', { name: /Journey & lifecycle emails/ });
    const subscribed = page.getByRole('checkbox', { name: 'Subscribed to email at all' });
    await poll(() => journeyEmails.isChecked()).toBe(true);
    await poll(() => subscribed.isChecked()).toBe(true);
    // every category of journeys/categories.ts has its switch
    for (const label of ['Product updates', 'Newsletter']) await poll(() => page.getByRole('checkbox', { name: label }).isChecked()).toBe(true);
    await expectPage(page.getByText(/Suppressed since/)).toHaveCount(0);

    // the switch is controlled by the server's answer, so click and watch the API (not uncheck())
    await journeyEmails.click();
    await poll(async () => (await api.request('GET', `/v1/admin/contacts/${contactId}/preferences`, { token: LEGACY })).body.preferences?.categories).toEqual({
      journey: false,
    });
    await poll(() => journeyEmails.isChecked()).toBe(false);
    await poll(() => subscribed.isChecked()).toBe(true);
  });

  it('shows emails and one email in a sandboxed frame, a link scanner’s click greyed with its reason beside a person’s', async () => {
    const link = await eventually(
      () => api.deps.db.selectFrom('trackedLinks').select('id').where('emailSendId', '=', seed.emailId).where('honeypot', '=', false).executeTakeFirst(),
      (row) => row !== undefined,
      { what: 'the sent email’s tracked link' },
    );
    await fetch(`${api.url}/v1/t/c/${link!.id}`, { method: 'HEAD', redirect: 'manual' });
    await fetch(`${api.url}/v1/t/c/${link!.id}`, { redirect: 'manual' });
    await api.deps.tracking.settled();
    await visit('/studio/emails', 'emails', 'Emails');
    await visit(`/studio/emails/${seed.emailId}`, 'email-detail', /Welcome/);
    await expectPage(page.locator('iframe[title="Email HTML"]')).toHaveAttribute('sandbox', '');
    // the email itself shows in its frame, under the studio's content security policy
    await expectPage(page.frameLocator('iframe[title="Email HTML"]').getByRole('heading', { name: 'Welcome to Waymark' })).toBeVisible();
    const hits = page.getByRole('table', { name: 'Opens and clicks' });
    const machine = hits.getByRole('row').filter({ hasText: 'Machine: link check (HEAD request)' });
    await expectPage(machine).toHaveCount(1);
    await expectPage(machine).toHaveAttribute('class', 'muted');
    await expectPage(hits.getByRole('row').filter({ hasText: 'Person' })).toHaveCount(1);
  });

  it('previews templates', async () => {
    await visit('/studio/templates?key=welcome', 'templates', 'Templates');
    await poll(() => page.getByText(/Subject:/).count()).toBeGreaterThan(0);
  });

  it('lists events', async () => {
    await visit(`/studio/events?userId=${userId}-a`, 'events', 'Events');
  });

  it('retries a dead letter', async () => {
    await visit('/studio/dlq?status=pending', 'dlq', 'Dead letters');
    const row = page.getByRole('row').filter({ hasText: `provider timed out (studio ${run})` });
    await row.getByRole('button', { name: 'Retry' }).click();
    await expectPage(page.getByRole('status').filter({ hasText: 'Done: 1 entry' })).toHaveCount(1);
    await poll(async () =>
      (await api.request('GET', `/v1/admin/dlq?status=retried&limit=100`, { token: LEGACY })).body.entries.map((entry: { id: string }) => entry.id),
    ).toContain(seed.dlqId);
  });

  it('creates an API key, shows it once, and revokes it', async () => {
    await visit('/studio/settings/api-keys', 'api-keys', 'API keys');
    const name = `studio-key-${run}`;
    await page.getByLabel('Name').fill(name);
    await page.getByRole('button', { name: 'Create key' }).click();
    await expectPage(page.getByTestId('new-api-key')).toHaveText(/^wm_/);
    const raw = await page.getByTestId('new-api-key').textContent();
    expect((await api.request('GET', '/v1/admin/journeys', { token: raw ?? '' })).status).toBe(403); // ingest only
    await page.getByRole('row').filter({ hasText: name }).getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await expectPage(page.getByRole('row').filter({ hasText: name })).toHaveCount(0);
    await poll(async () => (await api.request('POST', '/v1/events', { token: raw ?? '', body: { name: 'x', userId: 'x' } })).status).toBe(401);
  });

  it('shows the settings pages', async () => {
    await visit('/studio/settings/alerts', 'alerts', 'Alerts');
    await visit('/studio/settings/members', 'members', 'Members');
    await visit('/studio/settings/audit-log', 'audit-log', 'Audit log');
    await expectPage(page.getByRole('row').filter({ hasText: 'api-key' }).first()).toBeVisible();
    // the key created and revoked above through the studio: the person, with a user badge
    const mine = page.getByRole('row').filter({ hasText: 'api-key' }).filter({ hasText: signedInEmail });
    await expectPage(mine.first()).toBeVisible();
    await expectPage(mine.first().locator('.badge', { hasText: 'user' })).toHaveCount(1);
  });

  it('shows the signed-out pages', async () => {
    await visit('/studio/reset-password?token=not-a-real-token', 'reset-password', 'Reset password');
    await visit('/studio/accept-invite?token=not-a-real-token', 'accept-invite', 'Accept invitation');
  });

  it('saw no console error and no failed request', () => {
    expect(studio.problems).toEqual([]);
  });
});
