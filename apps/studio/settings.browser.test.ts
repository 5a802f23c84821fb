import { randomUUID } from 'node:crypto';
import { expectPage } from '../../test/browser';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '@waymark/core/organizations/organizations';
import { hashPassword } from '@waymark/core/users/passwords';
import { insertUser } from '@waymark/core/users/users';
import type { TestApi } from '../../test/test-api';
import { checkPage, poll, signIn, startStudio, type Studio } from './test/studio-fixture';

/**
 * The settings pages in Chromium against a real api: webhooks (endpoint created with its secret
 * shown once, edited, switched, tested, deleted), alert rules (client-side check, created, edited,
 * switched, deleted), members (removed, invitations listed, the owner role offered only to an owner),
 * and what a viewer sees. Fails on any
 * console error, failed request, or serious/critical axe violation; screenshots: test-results/studio/.
 */
describe('Studio settings in Chromium', () => {
  let studio: Studio;
  let api: TestApi;
  let page: Page;
  const run = randomUUID().slice(0, 8);
  const viewer = { email: `viewer-${run}@waymark-test.example`, password: `pw-${randomUUID()}` };
  const leaver = `leaver-${run}@waymark-test.example`;
  const adminPerson = { email: `admin-${run}@waymark-test.example`, password: `pw-${randomUUID()}` };
  let ownerEmail: string;
  const admin = (path: string) => api.request('GET', path, { token: studio.legacyKey });

  /** A person in the organization the studio's owners see (the oldest one, which every test admin joins). */
  async function seedMember(email: string, password: string, role: 'viewer' | 'editor' | 'admin'): Promise<void> {
    const user = await insertUser(api.deps.db, { email, name: null, passwordHash: await hashPassword(password), role: 'member', accessRole: role });
    const oldest = await api.deps.db.selectFrom('organizations').select('id').orderBy('createdAt').limit(1).executeTakeFirstOrThrow();
    await addMember(api.deps.db, { organizationId: oldest.id, userId: user.id });
  }

  beforeAll(async () => {
    studio = await startStudio();
    api = studio.api;
    const owner = await studio.openAdminTab('settings');
    ({ page } = owner);
    ownerEmail = owner.admin.email;
    await seedMember(viewer.email, viewer.password, 'viewer');
    await seedMember(leaver, `pw-${randomUUID()}`, 'editor');
    await seedMember(adminPerson.email, adminPerson.password, 'admin');
  });

  afterAll(() => studio?.close());

  it('adds a webhook endpoint, shows its secret once, edits, switches, tests and deletes it', async () => {
    await page.goto('/studio/settings/webhooks');
    await checkPage(page, 'webhooks', 'Webhooks');
    const url = `https://hooks.waymark-test.example/studio-${run}`;
    const form = page.getByRole('region', { name: 'Add an endpoint' });
    // checked in the browser first: no event type, no request
    await form.getByLabel('URL').fill(url);
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    await expectPage(form.getByRole('alert')).toHaveText('Choose at least one event type');

    await form.getByRole('checkbox', { name: 'journey.failed' }).check();
    // created switched off: this test's endpoint must not receive other test files' events
    await form.getByRole('checkbox', { name: 'Enabled' }).uncheck();
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    await expectPage(page.getByTestId('new-webhook-secret')).toHaveText(/^whsec_/);
    const secret = await page.getByTestId('new-webhook-secret').textContent();
    const row = page.getByRole('row').filter({ hasText: url });
    await expectPage(row).toHaveCount(1);
    const listed = (await admin('/v1/admin/webhook-endpoints?limit=100')).body.endpoints.find((endpoint: { url: string }) => endpoint.url === url);
    expect(listed).toMatchObject({ events: ['journey.failed'], enabled: false });
    // the secret is shown once: not in the list, gone after a reload
    expect(JSON.stringify(listed)).not.toContain(secret);
    await page.reload();
    await expectPage(row).toHaveCount(1);
    await expectPage(page.getByTestId('new-webhook-secret')).toHaveCount(0);

    await row.getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('region', { name: /^Edit/ });
    await edit.getByLabel('Description (optional)').fill('CRM sync');
    await edit.getByRole('checkbox', { name: 'journey.completed' }).check();
    await edit.getByRole('button', { name: 'Save endpoint' }).click();
    await poll(async () => (await admin(`/v1/admin/webhook-endpoints/${listed.id}`)).body).toMatchObject({
      description: 'CRM sync',
      events: ['journey.failed', 'journey.completed'],
    });
    await expectPage(page.getByRole('region', { name: 'Add an endpoint' })).toHaveCount(1);

    await row.getByRole('button', { name: 'Enable' }).click();
    await poll(async () => (await admin(`/v1/admin/webhook-endpoints/${listed.id}`)).body.enabled).toBe(true);
    await row.getByRole('button', { name: 'Disable' }).click();
    await poll(async () => (await admin(`/v1/admin/webhook-endpoints/${listed.id}`)).body.enabled).toBe(false);

    // a test event goes even to a disabled endpoint: queued in the outbox for this endpoint
    await row.getByRole('button', { name: 'Send test' }).click();
    await expectPage(page.getByRole('status').filter({ hasText: 'webhook.test' })).toHaveCount(1);
    const queued = await api.deps.db
      .selectFrom('outboundEvents')
      .select('id')
      .where('endpointId', '=', listed.id)
      .where('event', '=', 'webhook.test')
      .execute();
    expect(queued).toHaveLength(1);
    // The integration run's worker does not dispatch the outbox (docs/webhooks.md; the outbound
    // webhook tests run their own), so the delivery rows its attempts would write are written here:
    // the page picks up the awaited test delivery by itself, and a failed one points to the DLQ.
    const failedEvent = await api.deps.db
      .insertInto('outboundEvents')
      .values({ event: 'journey.failed', payload: JSON.stringify({ journeyId: 'welcome-series' }) })
      .returning('id')
      .executeTakeFirstOrThrow();
    await api.deps.db
      .insertInto('webhookDeliveries')
      .values([
        {
          endpointId: listed.id,
          outboundEventId: failedEvent.id,
          eventType: 'journey.failed',
          status: 'failed',
          attempts: 14,
          lastStatusCode: 500,
          lastDurationMs: 87,
        },
        {
          endpointId: listed.id,
          outboundEventId: queued[0]!.id,
          eventType: 'webhook.test',
          status: 'succeeded',
          attempts: 1,
          lastStatusCode: 204,
          lastDurationMs: 42,
          deliveredAt: new Date(),
        },
      ])
      .execute();
    const deliveries = page.getByRole('table', { name: `Deliveries to ${url}` });
    await expectPage(deliveries.getByRole('row').filter({ hasText: 'webhook.test' }).filter({ hasText: 'HTTP 204 in 42 ms' })).toHaveCount(1);
    const failed = deliveries.getByRole('row').filter({ hasText: 'journey.failed' });
    await expectPage(failed.getByRole('link', { name: /dead-letter queue/ })).toHaveAttribute('href', '/studio/dlq?source=webhook-delivery&status=pending');
    await checkPage(page, 'webhooks-deliveries', 'Webhooks');

    await row.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Rotate secret' }).click();
    await expectPage(page.getByTestId('rotated-webhook-secret')).toHaveText(/^whsec_/);
    const rotated = await page.getByTestId('rotated-webhook-secret').textContent();
    expect(rotated).not.toBe(secret);

    await row.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Delete endpoint' }).click();
    await expectPage(row).toHaveCount(0);
    expect((await api.request('GET', `/v1/admin/webhook-endpoints/${listed.id}`, { token: studio.legacyKey })).status).toBe(404);
  });

  it('creates an alert rule, refuses a bad threshold before sending, edits, switches and deletes it', async () => {
    await page.goto('/studio/settings/alerts');
    await checkPage(page, 'alerts', 'Alerts');
    const name = `Bounces ${run}`;
    const form = page.getByRole('region', { name: 'Add a rule' });
    await form.getByLabel('Name').fill(name);
    await form.getByLabel('Threshold (ratio 0–1)').fill('5');
    await form.getByLabel('URL').fill('https://hooks.waymark-test.example/alerts');
    // created switched off, so the minute schedule never fires it at another test's bounces
    await form.getByRole('checkbox', { name: 'Enabled' }).uncheck();
    await form.getByRole('button', { name: 'Add rule' }).click();
    await poll(() => form.getByRole('alert').textContent()).toContain('ratio between 0 and 1');
    await form.getByLabel('Threshold (ratio 0–1)').fill('0.05');
    await form.getByRole('button', { name: 'Add rule' }).click();
    const row = page.getByRole('row').filter({ hasText: name });
    await expectPage(row).toHaveCount(1);
    const rule = (await admin('/v1/admin/alerts/rules')).body.rules.find((candidate: { name: string }) => candidate.name === name);
    expect(rule).toMatchObject({
      type: 'bounce_rate_exceeded',
      threshold: 0.05,
      channel: 'webhook',
      channelConfig: { url: 'https://hooks.waymark-test.example/alerts' },
      enabled: false,
    });

    await row.getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('region', { name: /^Edit/ });
    await edit.getByLabel('Fires when').selectOption('journey_failure_spike');
    await edit.getByLabel('Threshold (count)').fill('10');
    await edit.getByLabel('Channel').selectOption('email');
    await edit.getByLabel('Send to').fill(`oncall-${run}@waymark-test.example`);
    await edit.getByRole('button', { name: 'Save rule' }).click();
    await poll(async () => (await admin('/v1/admin/alerts/rules')).body.rules.find((candidate: { id: string }) => candidate.id === rule.id)).toMatchObject({
      type: 'journey_failure_spike',
      threshold: 10,
      channel: 'email',
      channelConfig: { to: `oncall-${run}@waymark-test.example` },
    });
    await checkPage(page, 'alerts-edited', 'Alerts');

    await row.getByRole('button', { name: 'Enable' }).click();
    await expectPage(row.getByRole('button', { name: 'Disable' })).toHaveCount(1);
    await row.getByRole('button', { name: 'Disable' }).click();
    await poll(async () => (await admin('/v1/admin/alerts/rules')).body.rules.find((candidate: { id: string }) => candidate.id === rule.id).enabled).toBe(
      false,
    );

    await row.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Delete rule' }).click();
    await expectPage(row).toHaveCount(0);
  });

  it('removes a member after a confirmation and lists a pending invitation', async () => {
    await page.goto('/studio/settings/members');
    await checkPage(page, 'members', 'Members');
    const invited = `invited-${run}@waymark-test.example`;
    const inviteForm = page.getByRole('region', { name: 'Invite someone' });
    await inviteForm.getByLabel('Email').fill(invited);
    await inviteForm.getByRole('button', { name: 'Send invitation' }).click();
    await expectPage(page.getByRole('table', { name: 'Pending invitations' }).getByRole('row').filter({ hasText: invited })).toHaveCount(1);

    const row = page.getByRole('row').filter({ hasText: leaver });
    await row.getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('button', { name: 'Remove member' }).click();
    await expectPage(row).toHaveCount(0);
    const oldest = await api.deps.db.selectFrom('organizations').select('id').orderBy('createdAt').limit(1).executeTakeFirstOrThrow();
    const members = await api.deps.db
      .selectFrom('organizationMembers as m')
      .innerJoin('users as u', 'u.id', 'm.userId')
      .select('u.email')
      .where('m.organizationId', '=', oldest.id)
      .execute();
    expect(members.map((member) => member.email)).not.toContain(leaver);
    await checkPage(page, 'members-managed', 'Members');
  });

  it('offers the owner role only to an owner: an admin can neither grant it nor change an owner (the api answers 403)', async () => {
    const options = (scope: Page | ReturnType<Page['getByRole']>, label: string | RegExp) =>
      scope.getByLabel(label).first().locator('option').allTextContents();
    await page.goto('/studio/settings/members');
    await expectPage(page.getByRole('row').filter({ hasText: adminPerson.email })).toHaveCount(1);
    expect(await options(page, `Role of ${adminPerson.email}`)).toContain('owner');
    expect(await options(page.getByRole('region', { name: 'Invite someone' }), 'Role')).toContain('owner');

    const tab = await studio.openTab();
    await signIn(tab.page, adminPerson);
    await tab.page.goto('/studio/settings/members');
    await expectPage(tab.page.getByRole('row').filter({ hasText: viewer.email })).toHaveCount(1);
    expect(await options(tab.page, `Role of ${viewer.email}`)).toEqual(['admin', 'editor', 'viewer']);
    expect(await options(tab.page.getByRole('region', { name: 'Invite someone' }), 'Role')).toEqual(['admin', 'editor', 'viewer']);
    // the members table only: the pending invitations name the owner as their sender
    const ownerRow = tab.page.getByRole('table', { name: 'Members' }).getByRole('row').filter({ hasText: ownerEmail });
    await expectPage(ownerRow).toHaveCount(1);
    await expectPage(ownerRow.getByRole('combobox')).toHaveCount(0);
    await expectPage(ownerRow.getByRole('button')).toHaveCount(0);
    await checkPage(tab.page, 'members-admin', 'Members');
  });

  it('shows a viewer no mutation on the settings pages', async () => {
    const tab = await studio.openTab();
    // signed out, a settings link goes to sign-in and back after it (the 401 that tells is expected here)
    const before = studio.problems.length;
    await tab.page.goto('/studio/settings/members');
    await tab.page.waitForURL((url) => url.pathname === '/studio/sign-in' && url.searchParams.get('next') === '/studio/settings/members');
    expect(studio.problems.splice(before).filter((problem) => !problem.includes('401'))).toEqual([]);
    await signIn(tab.page, viewer);
    for (const [path, title] of [
      ['/studio/settings/webhooks', 'Webhooks'],
      ['/studio/settings/alerts', 'Alerts'],
    ] as const) {
      await tab.page.goto(path);
      await expectPage(tab.page.getByRole('heading', { level: 1 })).toHaveText(title);
      await expectPage(tab.page.getByText('This page is for owners and admins')).toHaveCount(1);
      await expectPage(tab.page.getByRole('button').filter({ hasNotText: 'Sign out' })).toHaveCount(0);
    }
    await tab.page.goto('/studio/settings/members');
    await checkPage(tab.page, 'members-viewer', 'Members');
    await expectPage(tab.page.getByRole('row').filter({ hasText: viewer.email })).toHaveCount(1);
    await expectPage(tab.page.getByRole('button').filter({ hasNotText: 'Sign out' })).toHaveCount(0);
    await expectPage(tab.page.getByRole('combobox')).toHaveCount(0);
  });

  it('saw no console error and no failed request', () => {
    expect(studio.problems).toEqual([]);
  });
});
