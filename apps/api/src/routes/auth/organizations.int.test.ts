import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestAdmin, invitationTokenFor, SessionClient } from '../../../../../test/auth-client';
import { eventually } from '../../../../../test/eventually';
import { journeyStatesOf } from '../../../../../test/journey-states';
import { startTestApi, type TestApi } from '../../../../../test/test-api';

const DAY = 24 * 60 * 60 * 1000;

describe('organizations, members, invitations, and sessions on /v1/admin/*', () => {
  let api: TestApi;
  let offsetMs = 0;
  let owner: SessionClient;
  let ownerAccount: { email: string; password: string; id: string };
  let orgId: string;

  /** Invites `role` into the owner's organization and signs the invitee in by accepting it. */
  async function join(role: string, label = role): Promise<{ client: SessionClient; email: string; userId: string }> {
    const email = `${label}-${randomUUID().slice(0, 8)}@waymark-test.example`;
    const invited = await owner.request('POST', `/api/auth/organization/${orgId}/invite`, { body: { email, role } });
    expect(invited.status, invited.text).toBe(201);
    expect(invited.body.invitation).toMatchObject({ email, role });
    const client = new SessionClient(api);
    const accepted = await client.request('POST', '/api/auth/accept-invitation', {
      body: { token: await invitationTokenFor(email), password: 'invitee password', name: label },
    });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body.user).toMatchObject({ email, name: label, role: 'member' });
    expect(client.cookie).toBeDefined();
    return { client, email, userId: accepted.body.user.id };
  }

  beforeAll(async () => {
    api = await startTestApi({ TRUST_PROXY: 'true' }, { now: () => Date.now() + offsetMs });
    ownerAccount = await createTestAdmin(api, 'owner');
    owner = new SessionClient(api);
    await owner.signIn(ownerAccount.email, ownerAccount.password);
    // an organization of this file's own, so member counts are not shared with other tests
    const created = await owner.request('POST', '/api/auth/organization/create', { body: { name: `Team ${randomUUID().slice(0, 6)}` } });
    expect(created.status, created.text).toBe(201);
    orgId = created.body.organization.id;
  });
  afterAll(() => api.close());

  const asOrg = () => ({ 'x-waymark-org': orgId });

  it('lists my organizations with my role, and the members of one', async () => {
    const list = await owner.request('GET', '/api/auth/organization/list');
    expect(list.body.organizations).toEqual(
      expect.arrayContaining([expect.objectContaining({ slug: 'default', role: 'owner' }), expect.objectContaining({ id: orgId, role: 'owner' })]),
    );
    const members = await owner.request('GET', `/api/auth/organization/${orgId}/members`);
    expect(members.body.members).toEqual([expect.objectContaining({ userId: ownerAccount.id, email: ownerAccount.email, role: 'owner' })]);
    expect((await new SessionClient(api).request('GET', '/api/auth/organization/list')).status).toBe(401);
  });

  it('maps roles to admin scopes: viewer reads only, editor cancels a journey state, owner creates a key', async () => {
    const viewer = await join('viewer');
    const editor = await join('editor');

    expect((await viewer.client.request('GET', '/v1/admin/journeys', { headers: asOrg() })).status).toBe(200);
    const denied = await viewer.client.request('PATCH', '/v1/admin/journeys/re-engagement', { headers: asOrg(), body: { enabled: true } });
    expect(denied).toMatchObject({ status: 403, body: { error: 'Insufficient scope' } });

    const userId = `u-${randomUUID()}`;
    const enrolled = await editor.client.request('POST', '/v1/admin/journeys/re-engagement/enroll', {
      headers: asOrg(),
      body: { userId, userEmail: `${userId}@example.com`, properties: { daysInactive: 20 } },
    });
    expect(enrolled.status, enrolled.text).toBe(202);
    const [state] = await eventually(
      () => journeyStatesOf(api.deps.db, userId, 're-engagement'),
      (rows) => rows[0]?.status === 'waiting',
    );
    const cancelled = await editor.client.request('DELETE', `/v1/admin/journeys/re-engagement/states/${state?.id}`, { headers: asOrg() });
    expect(cancelled).toMatchObject({ status: 200, body: { state: { status: 'exited' } } });
    expect((await editor.client.request('POST', '/v1/admin/api-keys', { headers: asOrg(), body: { name: 'nope', scopes: ['read'] } })).status).toBe(403);

    const key = await owner.request('POST', '/v1/admin/api-keys', { headers: asOrg(), body: { name: `by-owner-${userId}`, scopes: ['read'] } });
    expect(key.status, key.text).toBe(201);
    const audit = await api.deps.db
      .selectFrom('auditLogs')
      .selectAll()
      .where('resource', '=', 'api-key')
      .where('resourceId', '=', key.body.id)
      .executeTakeFirstOrThrow();
    expect(audit).toMatchObject({ actor: ownerAccount.email, actorType: 'user', actorUserId: ownerAccount.id, actorKeyId: null, action: 'create' });
    const cancelAudit = await api.deps.db.selectFrom('auditLogs').selectAll().where('action', '=', 'cancel').where('actorUserId', '=', editor.userId).execute();
    expect(cancelAudit).toHaveLength(1);
  });

  it('get-session carries the active organization and what its role allows, as /v1/admin/* applies it', async () => {
    const viewer = await join('viewer', 'session-viewer');
    const editor = await join('editor', 'session-editor');
    const expected = [
      [viewer.client, 'viewer', { manageJourneys: false, administer: false }],
      [editor.client, 'editor', { manageJourneys: true, administer: false }],
      [owner, 'owner', { manageJourneys: true, administer: true }],
    ] as const;
    for (const [client, role, abilities] of expected) {
      const session = await client.request('GET', '/api/auth/get-session', { headers: asOrg() });
      expect(session.status, session.text).toBe(200);
      expect(session.body).toMatchObject({ organization: { id: orgId, role }, abilities });
    }
    // with no header, the first organization, as the admin plane picks it: the owner's is the default one
    expect((await owner.request('GET', '/api/auth/get-session')).body.organization).toMatchObject({ slug: 'default', role: 'owner' });
    const outside = await viewer.client.request('GET', '/api/auth/get-session', { headers: { 'x-waymark-org': randomUUID() } });
    expect(outside.body).toMatchObject({ organization: null, abilities: { manageJourneys: false, administer: false } });
  });

  it('shows a person in the audit-log API as actorDetail {type: user, id, email, name}, found by email or id; key rows keep their fields', async () => {
    const ada = await join('admin', 'ada');
    const byAda = await ada.client.request('POST', '/v1/admin/api-keys', { headers: asOrg(), body: { name: `by-ada-${ada.userId}`, scopes: ['full-admin'] } });
    expect(byAda.status, byAda.text).toBe(201);
    const keyName = `by-key-${ada.userId}`;
    const byKey = await api.request('POST', '/v1/admin/api-keys', { token: byAda.body.key, body: { name: keyName, scopes: ['read'] } });
    expect(byKey.status, byKey.text).toBe(201);

    const person = { type: 'user', id: ada.userId, email: ada.email, name: 'ada' };
    for (const actor of [ada.email, ada.userId]) {
      const listed = await ada.client.request('GET', `/v1/admin/audit-logs?actor=${encodeURIComponent(actor)}`, { headers: asOrg() });
      expect(listed.status, listed.text).toBe(200);
      expect(listed.body.logs.map((entry: { action: string; resource: string }) => [entry.action, entry.resource])).toEqual([
        ['create', 'api-key'],
        ['accept-invitation', 'invitation'],
      ]);
      for (const entry of listed.body.logs) expect(entry).toMatchObject({ actor: ada.email, actorKeyId: null, actorDetail: person });
    }

    const keyRows = await ada.client.request('GET', `/v1/admin/audit-logs?actor=${encodeURIComponent(`by-ada-${ada.userId}`)}`, { headers: asOrg() });
    expect(keyRows.body.logs).toHaveLength(1);
    expect(keyRows.body.logs[0]).toMatchObject({ actor: `by-ada-${ada.userId}`, actorKeyId: byAda.body.id, action: 'create', resourceId: byKey.body.id });
    expect(Object.keys(keyRows.body.logs[0]).sort()).toEqual(
      ['id', 'actor', 'actorKeyId', 'action', 'resource', 'resourceId', 'detail', 'ipAddress', 'createdAt'].sort(),
    );

    // a failed sign-in names the email tried and nobody's id
    await new SessionClient(api).signIn(ada.email, 'not the password');
    const failed = await ada.client.request('GET', `/v1/admin/audit-logs?actor=${encodeURIComponent(ada.email)}&action=sign-in-failed`, { headers: asOrg() });
    expect(failed.body.logs).toEqual([expect.objectContaining({ actorDetail: { type: 'user', id: null, email: ada.email, name: null } })]);
  });

  it('never gives a session ingest, checks the origin of admin mutations, and honours X-Waymark-Org', async () => {
    const ingest = await owner.request('POST', '/v1/events', { body: { event: 'x', userId: 'u1', userEmail: 'u1@example.com' } });
    expect(ingest).toMatchObject({ status: 403, body: { error: 'Insufficient scope' } });
    const crossSite = await owner.request('POST', '/v1/admin/api-keys', {
      origin: 'https://evil.example',
      headers: asOrg(),
      body: { name: 'x', scopes: ['read'] },
    });
    expect(crossSite).toMatchObject({ status: 403, body: { error: 'Invalid origin' } });
    const viewer = await join('viewer', 'outsider');
    expect((await viewer.client.request('GET', '/v1/admin/journeys', { headers: { 'x-waymark-org': randomUUID() } })).status).toBe(403);
    expect((await new SessionClient(api).request('GET', '/v1/admin/journeys', { headers: { cookie: 'waymark_session=forged' } })).status).toBe(401);
    const forged = await api.request('GET', '/v1/admin/journeys', { headers: { cookie: 'waymark_session=forged' } });
    expect(forged).toMatchObject({ status: 401, body: { error: 'Invalid or expired session' } });
  });

  it('invitations work once and for 7 days; an existing account joins with its own password', async () => {
    const email = `late-${randomUUID().slice(0, 8)}@waymark-test.example`;
    await owner.request('POST', `/api/auth/organization/${orgId}/invite`, { body: { email, role: 'viewer' } });
    const token = await invitationTokenFor(email);
    try {
      offsetMs = 7 * DAY + 60_000;
      const late = await new SessionClient(api).request('POST', '/api/auth/accept-invitation', { body: { token, password: 'invitee password' } });
      expect(late).toMatchObject({ status: 400, body: { error: 'Invalid or expired token', code: 'INVALID_TOKEN' } });
    } finally {
      offsetMs = 0;
    }
    expect((await new SessionClient(api).request('POST', '/api/auth/accept-invitation', { body: { token, password: 'invitee password' } })).status).toBe(200);
    const reused = await new SessionClient(api).request('POST', '/api/auth/accept-invitation', { body: { token, password: 'invitee password' } });
    expect(reused).toMatchObject({ status: 400, body: { code: 'INVALID_TOKEN' } });

    // the owner (an existing account) invited into a second organization must give their own password
    const other = await owner.request('POST', '/api/auth/organization/create', { body: { name: 'Second team' } });
    await owner.request('POST', `/api/auth/organization/${other.body.organization.id}/invite`, { body: { email: ownerAccount.email, role: 'viewer' } });
    const ownerToken = await invitationTokenFor(ownerAccount.email);
    expect(
      (await new SessionClient(api).request('POST', '/api/auth/accept-invitation', { body: { token: ownerToken, password: 'not my password' } })).status,
    ).toBe(401);
  });

  it('keeps the last owner, lets owners change roles and remove members, and refuses non-managers', async () => {
    const editor = await join('editor', 'promoted');
    const self = `/api/auth/organization/${orgId}/members/${ownerAccount.id}`;
    expect(await owner.request('PATCH', self, { body: { role: 'admin' } })).toMatchObject({
      status: 409,
      body: { error: expect.stringContaining('last owner') },
    });
    expect((await owner.request('DELETE', self)).status).toBe(409);
    expect((await editor.client.request('PATCH', self, { body: { role: 'viewer' } })).status).toBe(403);
    // only owners make organizations
    expect((await editor.client.request('POST', '/api/auth/organization/create', { body: { name: 'Not mine to make' } })).status).toBe(403);

    const promote = await owner.request('PATCH', `/api/auth/organization/${orgId}/members/${editor.userId}`, { body: { role: 'owner' } });
    expect(promote).toMatchObject({ status: 200, body: { ok: true } });
    // the new owner's session now has full-admin at once
    expect((await editor.client.request('GET', '/v1/admin/api-keys', { headers: asOrg() })).status).toBe(200);
    // the first owner is still the only owner of the default organization: not to be demoted
    expect((await editor.client.request('PATCH', self, { body: { role: 'admin' } })).status).toBe(409);
    expect((await owner.request('PATCH', self, { body: { role: 'owner' } })).status).toBe(200);
    expect((await owner.request('DELETE', `/api/auth/organization/${orgId}/members/${editor.userId}`)).status).toBe(200);
    const members = await owner.request('GET', `/api/auth/organization/${orgId}/members`);
    expect(members.body.members.map((member: { userId: string }) => member.userId)).not.toContain(editor.userId);
    const roleAudit = await api.deps.db.selectFrom('auditLogs').selectAll().where('resource', '=', 'member').where('resourceId', '=', editor.userId).execute();
    expect(roleAudit.map((row) => row.action).sort()).toEqual(['delete', 'update']);
    const invited = await api.deps.db
      .selectFrom('auditLogs')
      .select(['action', 'actorUserId', 'detail'])
      .where('resource', '=', 'invitation')
      .where('action', '=', 'invite')
      .where('actorUserId', '=', ownerAccount.id)
      .execute();
    expect(invited.length).toBeGreaterThan(0);
  });

  it('lists pending invitations to managers and withdraws one, whose link then stops working', async () => {
    const email = `pending-${randomUUID().slice(0, 8)}@waymark-test.example`;
    const sent = await owner.request('POST', `/api/auth/organization/${orgId}/invite`, { body: { email, role: 'editor' } });
    expect(sent.status, sent.text).toBe(201);
    const token = await invitationTokenFor(email);
    const invitations = `/api/auth/organization/${orgId}/invitations`;
    const listed = await owner.request('GET', invitations);
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.invitations[0]).toEqual({
      id: sent.body.invitation.id,
      email,
      role: 'editor',
      invitedBy: ownerAccount.email,
      createdAt: expect.any(String),
      expiresAt: sent.body.invitation.expiresAt,
    });
    // accepted ones are members now, not pending
    const accepted = await join('viewer', 'accepted');
    expect((await owner.request('GET', invitations)).body.invitations.map((row: { email: string }) => row.email)).not.toContain(accepted.email);
    // the list names people who are not members yet: managers only
    expect(await accepted.client.request('GET', invitations)).toMatchObject({ status: 403, body: { error: expect.stringContaining('owner or admin') } });
    expect((await accepted.client.request('DELETE', `${invitations}/${sent.body.invitation.id}`)).status).toBe(403);

    expect(await owner.request('DELETE', `${invitations}/${sent.body.invitation.id}`)).toMatchObject({ status: 200, body: { ok: true } });
    expect((await owner.request('GET', invitations)).body.invitations.map((row: { id: string }) => row.id)).not.toContain(sent.body.invitation.id);
    expect(await owner.request('DELETE', `${invitations}/${sent.body.invitation.id}`)).toMatchObject({ status: 404, body: { error: 'Invitation not found' } });
    const late = await new SessionClient(api).request('POST', '/api/auth/accept-invitation', { body: { token, password: 'invitee password' } });
    expect(late).toMatchObject({ status: 400, body: { code: 'INVALID_TOKEN' } });
    const audit = await api.deps.db
      .selectFrom('auditLogs')
      .selectAll()
      .where('resource', '=', 'invitation')
      .where('resourceId', '=', sent.body.invitation.id)
      .execute();
    expect(audit.map((row) => row.action).sort()).toEqual(['invite', 'revoke']);
  });

  it('refuses a 101st member and a 6th organization with the limit in the message', async () => {
    const existing = await api.deps.db.selectFrom('organizationMembers').select('userId').where('organizationId', '=', orgId).execute();
    const filler = Array.from({ length: 100 - existing.length }, () => ({
      id: randomUUID(),
      email: `filler-${randomUUID()}@waymark-test.example`,
      passwordHash: 'x',
    }));
    await api.deps.db.insertInto('users').values(filler).execute();
    await api.deps.db
      .insertInto('organizationMembers')
      .values(filler.map((user) => ({ organizationId: orgId, userId: user.id })))
      .execute();
    const full = await owner.request('POST', `/api/auth/organization/${orgId}/invite`, {
      body: { email: `one-too-many-${randomUUID()}@waymark-test.example`, role: 'viewer' },
    });
    expect(full).toMatchObject({ status: 400, body: { error: expect.stringContaining('100 members') } });

    let status = 201;
    for (let index = 0; status === 201 && index < 6; index++) {
      status = (await owner.request('POST', '/api/auth/organization/create', { body: { name: `Org ${index} ${randomUUID().slice(0, 4)}` } })).status;
    }
    const sixth = await owner.request('POST', '/api/auth/organization/create', { body: { name: 'One too many' } });
    expect(sixth).toMatchObject({ status: 400, body: { error: expect.stringContaining('5 organizations') } });
    expect(await api.deps.db.selectFrom('organizations').select('id').execute()).toHaveLength(5);
  });
});
