import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestAdmin, invitationTokenFor, SessionClient } from '../../../../../test/auth-client';
import { openScratchDatabase, type ScratchDatabase } from '../../../../../test/scratch-database';
import { startTestApi, type TestApi } from '../../../../../test/test-api';

/**
 * One role per person over the installation's data, granted from above (docs/auth.md,
 * "Organizations, members, roles"; docs/security.md): no admin makes an owner, no team a person
 * creates or joins raises what they can do to the data, whatever `X-Waymark-Org` names.
 */
describe('roles are granted from above', () => {
  let api: TestApi;
  let scratch: ScratchDatabase;
  let owner: SessionClient;
  let ownerId: string;
  let orgId: string;

  async function invite(by: SessionClient, organizationId: string, email: string, role: string) {
    return by.request('POST', `/api/auth/organization/${organizationId}/invite`, { body: { email, role } });
  }

  /** A new person invited by the owner into `orgId` with `role`, signed in. */
  async function person(role: string): Promise<{ client: SessionClient; email: string; password: string; userId: string }> {
    const email = `${role}-${randomUUID().slice(0, 8)}@waymark-test.example`;
    const password = `pw-${randomUUID()}`;
    expect((await invite(owner, orgId, email, role)).status).toBe(201);
    const client = new SessionClient(api);
    const accepted = await client.request('POST', '/api/auth/accept-invitation', { body: { token: await invitationTokenFor(email), password } });
    expect(accepted.status, accepted.text).toBe(200);
    return { client, email, password, userId: accepted.body.user.id };
  }

  const member = (userId: string, organizationId = orgId) => `/api/auth/organization/${organizationId}/members/${userId}`;

  beforeAll(async () => {
    // a database of its own: organizations are few per installation, and other files create some
    scratch = await openScratchDatabase();
    api = await startTestApi({ TRUST_PROXY: 'true', DATABASE_URL: scratch.url });
    const account = await createTestAdmin(api, 'root');
    ownerId = account.id;
    owner = new SessionClient(api);
    await owner.signIn(account.email, account.password);
    const created = await owner.request('POST', '/api/auth/organization/create', { body: { name: `Roles ${randomUUID().slice(0, 6)}` } });
    expect(created.status, created.text).toBe(201);
    orgId = created.body.organization.id;
  });
  afterAll(async () => {
    await api.close();
    await scratch.release();
  });

  it('lets no admin make anyone owner, themselves included, nor touch an owner; an owner can', async () => {
    const admin = await person('admin');
    const viewer = await person('viewer');

    for (const target of [admin.userId, viewer.userId]) {
      expect(await admin.client.request('PATCH', member(target), { body: { role: 'owner' } })).toMatchObject({
        status: 403,
        body: { error: 'Only an owner can grant, change or remove the owner role' },
      });
    }
    expect((await invite(admin.client, orgId, `owner-${randomUUID().slice(0, 8)}@waymark-test.example`, 'owner')).status).toBe(400);
    expect((await admin.client.request('PATCH', member(ownerId), { body: { role: 'viewer' } })).status).toBe(403);
    expect((await admin.client.request('DELETE', member(ownerId))).status).toBe(403);
    // an admin still manages the roles below owner
    expect((await admin.client.request('PATCH', member(viewer.userId), { body: { role: 'editor' } })).status).toBe(200);

    expect((await owner.request('PATCH', member(viewer.userId), { body: { role: 'owner' } })).status).toBe(200);
    expect((await viewer.client.request('GET', '/v1/admin/api-keys')).status).toBe(200);
  });

  it('keeps the last owner: neither demoted nor removed', async () => {
    // the first administrator is the only owner of the default organization (others joined the test's own)
    const list = await owner.request('GET', '/api/auth/organization/list');
    const defaultId: string = list.body.organizations.find((org: { slug: string }) => org.slug === 'default').id;
    const self = member(ownerId, defaultId);
    expect(await owner.request('PATCH', self, { body: { role: 'admin' } })).toMatchObject({
      status: 409,
      body: { error: expect.stringContaining('last owner') },
    });
    expect(await owner.request('DELETE', self)).toMatchObject({ status: 409, body: { error: expect.stringContaining('last owner') } });
    expect((await owner.request('GET', '/v1/admin/api-keys')).status).toBe(200);
  });

  it('lets only owners create organizations', async () => {
    const admin = await person('admin');
    expect(await admin.client.request('POST', '/api/auth/organization/create', { body: { name: `Mine ${randomUUID().slice(0, 6)}` } })).toMatchObject({
      status: 403,
      body: { error: 'Only an owner can create organizations' },
    });
  });

  it('takes everything from a person removed from their last team: no session, no team of their own making', async () => {
    const removed = await person('owner');
    expect((await removed.client.request('GET', '/v1/admin/api-keys')).status).toBe(200);
    expect((await owner.request('DELETE', member(removed.userId))).status).toBe(200);

    // the session is gone: a comeback through a team of their own cannot start
    expect((await removed.client.request('GET', '/v1/admin/api-keys')).status).toBe(401);
    expect((await removed.client.request('POST', '/api/auth/organization/create', { body: { name: `Comeback ${randomUUID().slice(0, 6)}` } })).status).toBe(
      401,
    );
    // signed in again with their password, they belong nowhere and create nothing
    const again = new SessionClient(api);
    await again.signIn(removed.email, removed.password);
    expect(await again.request('POST', '/api/auth/organization/create', { body: { name: `Comeback ${randomUUID().slice(0, 6)}` } })).toMatchObject({
      status: 403,
      body: { error: 'Only an owner who belongs to an organization can create one' },
    });
    expect((await again.request('GET', '/v1/admin/api-keys')).status).toBe(403);
  });

  it('spends an invitation only while its inviter may still grant it', async () => {
    const admin = await person('admin');
    const email = `late-${randomUUID().slice(0, 8)}@waymark-test.example`;
    expect((await invite(admin.client, orgId, email, 'admin')).status).toBe(201);
    const token = await invitationTokenFor(email);
    // the inviter is demoted before the invitation is accepted: what they granted goes with their role
    expect((await owner.request('PATCH', member(admin.userId), { body: { role: 'viewer' } })).status).toBe(200);
    const accepted = await new SessionClient(api).request('POST', '/api/auth/accept-invitation', { body: { token, password: `pw-${randomUUID()}` } });
    expect(accepted).toMatchObject({ status: 400, body: { error: 'Invalid or expired token' } });
  });

  it('never raises what a person can do to the data by joining another team, whatever X-Waymark-Org names', async () => {
    const viewer = await person('viewer');
    const second = await owner.request('POST', '/api/auth/organization/create', { body: { name: `Second ${randomUUID().slice(0, 6)}` } });
    expect(second.status, second.text).toBe(201);
    const secondId: string = second.body.organization.id;
    // invited into the second team as an admin: an existing account joins with its own password and keeps its role
    expect((await invite(owner, secondId, viewer.email, 'admin')).status).toBe(201);
    const joined = await new SessionClient(api).request('POST', '/api/auth/accept-invitation', {
      body: { token: await invitationTokenFor(viewer.email, 1), password: viewer.password },
    });
    expect(joined.status, joined.text).toBe(200);

    for (const org of [orgId, secondId, second.body.organization.slug as string]) {
      const headers = { 'x-waymark-org': org };
      expect((await viewer.client.request('GET', '/v1/admin/journeys', { headers })).status).toBe(200);
      expect(await viewer.client.request('GET', '/v1/admin/api-keys', { headers })).toMatchObject({ status: 403, body: { error: 'Insufficient scope' } });
      expect((await viewer.client.request('PATCH', '/v1/admin/journeys/re-engagement', { headers, body: { enabled: true } })).status).toBe(403);
      const session = await viewer.client.request('GET', '/api/auth/get-session', { headers });
      expect(session.body).toMatchObject({ organization: { role: 'viewer' }, abilities: { manageJourneys: false, administer: false } });
    }
    const list = await viewer.client.request('GET', '/api/auth/organization/list');
    expect(list.body.organizations.map((org: { role: string }) => org.role)).toEqual(['viewer', 'viewer']);
    // nor does it let them manage the second team's members
    expect((await viewer.client.request('GET', `/api/auth/organization/${secondId}/invitations`)).status).toBe(403);
  });
});
