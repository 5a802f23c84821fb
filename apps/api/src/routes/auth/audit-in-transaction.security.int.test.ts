import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyCredentials } from '@waymark/core/users/credentials';
import { createTestAdmin, invitationTokenFor, resetTokenFor, SessionClient } from '../../../../../test/auth-client';
import { refuseAuditRowsOf } from '../../../../../test/refuse-audit';
import { startTestApi, type TestApi } from '../../../../../test/test-api';

/**
 * Issue 34, "Audit", for the changes people make through /api/auth (their audit rows are written
 * by core, not by the audit-trail plugin): a change whose audit row cannot be written does not
 * happen. The rows of one owner are refused by a trigger in the test's database.
 */
describe("a person's change and its audit row commit together (security)", () => {
  let api: TestApi;
  let kept: SessionClient;
  let refused: SessionClient;
  let refusedAccount: { email: string; password: string; id: string };
  let orgId: string;
  let allowAudit: (() => Promise<void>) | undefined;
  let resetToken: string;

  const member = (userId: string) => `/api/auth/organization/${orgId}/members/${userId}`;
  const address = (label: string) => `${label}-${randomUUID().slice(0, 8)}@waymark-test.example`;
  const invitationsTo = (email: string) => api.deps.db.selectFrom('organizationInvitations').select(['id', 'role']).where('email', '=', email).execute();

  /** A new viewer (invited by the owner whose rows are kept); their user id. */
  async function viewer(): Promise<string> {
    const email = address('viewer');
    expect((await kept.request('POST', `/api/auth/organization/${orgId}/invite`, { body: { email, role: 'viewer' } })).status).toBe(201);
    const accepted = await new SessionClient(api).request('POST', '/api/auth/accept-invitation', {
      body: { token: await invitationTokenFor(email), password: `pw-${randomUUID()}` },
    });
    expect(accepted.status, accepted.text).toBe(200);
    return accepted.body.user.id as string;
  }

  beforeAll(async () => {
    api = await startTestApi({ TRUST_PROXY: 'true' });
    const keptAccount = await createTestAdmin(api, 'audit-kept');
    kept = new SessionClient(api);
    expect((await kept.signIn(keptAccount.email, keptAccount.password)).status).toBe(200);
    refusedAccount = await createTestAdmin(api, 'audit-refused');
    refused = new SessionClient(api);
    expect((await refused.signIn(refusedAccount.email, refusedAccount.password)).status).toBe(200);
    // both administrators joined the oldest organization
    orgId = (await refused.request('GET', '/api/auth/organization/list')).body.organizations[0].id;
    // a reset link asked for before the rows are refused
    expect((await refused.request('POST', '/api/auth/request-password-reset', { body: { email: refusedAccount.email } })).status).toBe(200);
    resetToken = await resetTokenFor(refusedAccount.email);
    allowAudit = await refuseAuditRowsOf(api.deps.db, refusedAccount.email);
  });
  afterAll(async () => {
    await allowAudit?.();
    await api?.close();
  });

  const roleOf = async (userId: string) =>
    (await api.deps.db.selectFrom('users').select('accessRole').where('id', '=', userId).executeTakeFirstOrThrow()).accessRole;

  it('a role change whose audit row fails leaves the role as it was', async () => {
    const userId = await viewer();
    const changed = await refused.request('PATCH', member(userId), { body: { role: 'editor' } });
    expect(changed.status, changed.text).toBeGreaterThanOrEqual(500);
    expect(await roleOf(userId)).toBe('viewer');
    // the same change with its row written happens
    expect((await kept.request('PATCH', member(userId), { body: { role: 'editor' } })).status).toBe(200);
    expect(await roleOf(userId)).toBe('editor');
  });

  it('a removal whose audit row fails leaves the member in the organization', async () => {
    const userId = await viewer();
    const removed = await refused.request('DELETE', member(userId));
    expect(removed.status, removed.text).toBeGreaterThanOrEqual(500);
    const members = await api.deps.db
      .selectFrom('organizationMembers')
      .select('userId')
      .where('organizationId', '=', orgId)
      .where('userId', '=', userId)
      .execute();
    expect(members).toEqual([{ userId }]);
  });

  it('an invitation whose audit row fails is not created and its email is not sent', async () => {
    const email = address('invitee');
    const invited = await refused.request('POST', `/api/auth/organization/${orgId}/invite`, { body: { email, role: 'editor' } });
    expect(invited.status, invited.text).toBeGreaterThanOrEqual(500);
    expect(await invitationsTo(email)).toEqual([]);
    expect(await api.deps.db.selectFrom('emailSends').select('id').where('toEmail', '=', email).execute()).toEqual([]);
  });

  it('a revocation whose audit row fails leaves the invitation pending', async () => {
    const email = address('pending');
    const invited = await kept.request('POST', `/api/auth/organization/${orgId}/invite`, { body: { email, role: 'viewer' } });
    expect(invited.status, invited.text).toBe(201);
    const revoked = await refused.request('DELETE', `/api/auth/organization/${orgId}/invitations/${invited.body.invitation.id}`);
    expect(revoked.status, revoked.text).toBeGreaterThanOrEqual(500);
    expect(await invitationsTo(email)).toEqual([{ id: invited.body.invitation.id, role: 'viewer' }]);
  });

  it('a password change or reset whose audit row fails leaves the old password', async () => {
    const changed = await refused.request('POST', '/api/auth/change-password', {
      body: { currentPassword: refusedAccount.password, newPassword: `new-${randomUUID()}` },
    });
    expect(changed.status, changed.text).toBeGreaterThanOrEqual(500);
    const reset = await new SessionClient(api).request('POST', '/api/auth/reset-password', { body: { token: resetToken, newPassword: `new-${randomUUID()}` } });
    expect(reset.status, reset.text).toBeGreaterThanOrEqual(500);
    expect((await verifyCredentials(api.deps.db, refusedAccount.email, refusedAccount.password)).id).toBe(refusedAccount.id);
  });
});
