import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestAdmin, resetTokenFor, SessionClient } from '../../../../test/auth-client';
import { emailsTo, waitFor } from '../../../../test/email-emulator';
import { issueApiKey, startTestApi, type TestApi } from '../../../../test/test-api';
import { markEmailFailed } from '@waymark/core/emails/email-failures';
import { subscribeOutboxEndpoint } from '../../../../test/webhook-endpoints';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

/**
 * Issue 34, "Secrets never leave the send": the reset and invitation links carry a live
 * credential; they reach the recipient, and nothing an admin key or a studio viewer reads holds them.
 */
describe('secret template props (security)', () => {
  let api: TestApi;
  let readKey: string;
  let removeEndpoint: () => Promise<void>;
  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY, TRUST_PROXY: 'true' });
    readKey = await issueApiKey(api, LEGACY, `security-read-${randomUUID().slice(0, 8)}`, ['read']);
    removeEndpoint = await subscribeOutboxEndpoint(api.deps.db, ['email.sent', 'email.delivered', 'email.failed']);
  });
  afterAll(async () => {
    await removeEndpoint?.();
    await api?.close();
  });

  /** Every answer a `read` key (or a studio viewer) can get about the send `id` to `address`. */
  async function adminAnswers(id: string, address: string, read: (path: string) => Promise<{ status: number; text: string }>): Promise<string[]> {
    const answers: string[] = [];
    for (const path of [
      `/v1/admin/emails/${id}`,
      `/v1/admin/emails/${id}/rendered`,
      `/v1/admin/emails?limit=50`,
      `/v1/admin/contacts/export?format=json&limit=10000`,
    ]) {
      const response = await read(path);
      if (path.includes('export') && response.status === 403) continue; // not every reader may export
      expect(response.status, `${path}: ${response.text}`).toBe(200);
      answers.push(response.text);
    }
    const contact = await api.request('POST', '/v1/admin/contacts', { token: LEGACY, body: { externalId: `sec-${randomUUID()}`, email: address } });
    expect(contact.status, contact.text).toBeLessThan(300);
    const timeline = await read(`/v1/admin/contacts/${contact.body.contact.id as string}/timeline`);
    expect(timeline.status, timeline.text).toBe(200);
    answers.push(timeline.text);
    const outbox = await api.deps.db.selectFrom('outboundEvents').select('payload').execute();
    answers.push(JSON.stringify(outbox));
    return answers;
  }

  async function sendOf(templateKey: string, address: string): Promise<{ id: string; data: unknown }> {
    return waitFor(
      () =>
        api.deps.db
          .selectFrom('emailSends')
          .select(['id', 'data'])
          .where('templateKey', '=', templateKey)
          .where('toEmail', '=', address)
          .where('status', '=', 'sent')
          .executeTakeFirst(),
      { what: `${templateKey} send to ${address}` },
    );
  }

  it('the reproduction: a read key, a reset request, the email list and its rendering end with no token in any admin answer', async () => {
    const owner = await createTestAdmin(api, 'sec-owner');
    const requested = await new SessionClient(api).request('POST', '/api/auth/request-password-reset', { body: { email: owner.email } });
    expect(requested.status).toBe(200);
    const token = await resetTokenFor(owner.email);

    const listed = await api.request('GET', '/v1/admin/emails?templateKey=auth-password-reset&limit=50', { token: readKey });
    expect(listed.status).toBe(200);
    const send = await sendOf('auth-password-reset', owner.email);
    expect(listed.body.emails.map((email: { id: string }) => email.id)).toContain(send.id);
    expect(send.data).toMatchObject({ resetUrl: '[redacted]' });

    const answers = await adminAnswers(send.id, owner.email, (path) => api.request('GET', path, { token: readKey }));
    for (const answer of answers) expect(answer).not.toContain(token);
    const rendered = await api.request('GET', `/v1/admin/emails/${send.id}/rendered`, { token: readKey });
    // the studio's preview shows where the secret was
    expect(rendered.body.html).toContain('[redacted]');
    // the link the recipient got is live: the secret was used for the send itself
    const reset = await api.request('POST', '/api/auth/reset-password', { body: { token, newPassword: 'a brand new password' } });
    expect(reset.status, reset.text).toBe(200);
  });

  it('a studio viewer cannot read an invitation token', async () => {
    const admin = await createTestAdmin(api, 'sec-inviter');
    const owner = new SessionClient(api);
    expect((await owner.signIn(admin.email, admin.password)).status).toBe(200);
    // the oldest organization, which every administrator joins: the installation holds at most five,
    // and other test files fill that limit on the shared database
    const orgId = (await owner.request('GET', '/api/auth/organization/list')).body.organizations[0].id as string;

    // a viewer joins
    const viewerEmail = `sec-viewer-${randomUUID().slice(0, 8)}@waymark-test.example`;
    expect((await owner.request('POST', `/api/auth/organization/${orgId}/invite`, { body: { email: viewerEmail, role: 'viewer' } })).status).toBe(201);
    const viewerSend = await sendOf('auth-invitation', viewerEmail);
    const [viewerMail] = await emailsTo(viewerEmail);
    const viewerToken = /accept-invite\?token=([a-z0-9]+)/.exec(viewerMail?.body.html ?? '')?.[1];
    expect(viewerToken, 'the invitee gets a live link').toBeDefined();
    expect(viewerSend.id).toBeDefined();
    const viewer = new SessionClient(api);
    const accepted = await viewer.request('POST', '/api/auth/accept-invitation', { body: { token: viewerToken, password: 'viewer password', name: 'viewer' } });
    expect(accepted.status, accepted.text).toBe(200);

    // an owner invitation is pending: the viewer reads every email answer it can
    const ownerInvitee = `sec-owner-invitee-${randomUUID().slice(0, 8)}@waymark-test.example`;
    expect((await owner.request('POST', `/api/auth/organization/${orgId}/invite`, { body: { email: ownerInvitee, role: 'owner' } })).status).toBe(201);
    const pending = await sendOf('auth-invitation', ownerInvitee);
    const [mail] = await emailsTo(ownerInvitee);
    const liveToken = /accept-invite\?token=([a-z0-9]+)/.exec(mail?.body.html ?? '')?.[1];
    expect(liveToken).toBeDefined();
    const headers = { 'x-waymark-org': orgId };
    const answers = await adminAnswers(pending.id, ownerInvitee, (path) => viewer.request('GET', path, { headers }));
    for (const answer of answers) expect(answer).not.toContain(liveToken!);
    const rendered = await viewer.request('GET', `/v1/admin/emails/${pending.id}/rendered`, { headers });
    expect(rendered.body.html).toContain('[redacted]');
  });

  it('a failed send that carries a secret is never resent from the DLQ with the placeholder', async () => {
    const owner = await createTestAdmin(api, 'sec-dlq');
    await new SessionClient(api).request('POST', '/api/auth/request-password-reset', { body: { email: owner.email } });
    const send = await sendOf('auth-password-reset', owner.email);
    // the send failed for good (an operator sees a parked entry and retries it)
    await api.deps.db.updateTable('emailSends').set({ status: 'rendered', providerMessageId: null, sentAt: null }).where('id', '=', send.id).execute();
    await markEmailFailed(api.deps.db, send.id, 'provider error');
    const entry = await api.deps.db.selectFrom('dlqEntries').select('id').where('sourceId', '=', send.id).executeTakeFirstOrThrow();
    const retried = await api.request('POST', `/v1/admin/dlq/${entry.id}/retry`, { token: LEGACY });
    expect(retried.status, retried.text).toBe(409);
    expect(retried.body.error).toContain('secret');
    expect(await emailsTo(owner.email)).toHaveLength(1);
  });
});
