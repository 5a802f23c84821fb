import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailsTo, uniqueAddress } from '../../../../test/email-emulator';
import { refuseAuditRowsOf } from '../../../../test/refuse-audit';
import { issueApiKey, startTestApi, type TestApi } from '../../../../test/test-api';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

/**
 * Issue 34, "Audit": an audited change and its audit row commit together. The audit insert is
 * made to fail in this test's own database (a trigger refusing the rows of one key), never by a
 * branch in the code under test.
 */
describe('audit rows commit with their change (security)', () => {
  let api: TestApi;
  let refusedKey: string;
  let keptKey: string;
  let allowAudit: (() => Promise<void>) | undefined;
  const refusedName = `audit-refused-${randomUUID().slice(0, 8)}`;
  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY });
    refusedKey = await issueApiKey(api, LEGACY, refusedName, ['full-admin']);
    keptKey = await issueApiKey(api, LEGACY, `audit-kept-${randomUUID().slice(0, 8)}`, ['full-admin']);
    allowAudit = await refuseAuditRowsOf(api.deps.db, refusedName);
  });
  afterAll(async () => {
    await allowAudit?.();
    await api?.close();
  });

  const contactsNamed = (externalId: string) => api.deps.db.selectFrom('contacts').select(['id', 'email']).where('externalId', '=', externalId).execute();

  it('a failed audit write leaves the change undone: the contact is not created, and the answer is an error', async () => {
    const externalId = `audit-${randomUUID()}`;
    const created = await api.request('POST', '/v1/admin/contacts', { token: refusedKey, body: { externalId, email: `${externalId}@example.com` } });
    expect(created.status, created.text).toBeGreaterThanOrEqual(500);
    expect(await contactsNamed(externalId)).toEqual([]);
  });

  it('a failed audit write leaves an update undone too', async () => {
    const externalId = `audit-upd-${randomUUID()}`;
    const created = await api.request('POST', '/v1/admin/contacts', { token: keptKey, body: { externalId, email: 'before@example.com' } });
    expect(created.status, created.text).toBe(201);
    const id = created.body.contact.id as string;
    const updated = await api.request('PATCH', `/v1/admin/contacts/${id}`, { token: refusedKey, body: { email: 'after@example.com' } });
    expect(updated.status, updated.text).toBeGreaterThanOrEqual(500);
    expect(await contactsNamed(externalId)).toEqual([{ id, email: 'before@example.com' }]);
  });

  it('an outside effect (a test send) does not happen when its audit row cannot be written', async () => {
    const to = uniqueAddress('audit-test-send');
    const sent = await api.request('POST', '/v1/admin/templates/order-receipt/send-test', {
      token: refusedKey,
      body: { to, data: { orderId: 'A-1', items: [{ name: 'Seat', quantity: 1, price: 5 }] } },
    });
    expect(sent.status, sent.text).toBeGreaterThanOrEqual(500);
    expect(await emailsTo(to)).toHaveLength(0);
    expect(await api.deps.db.selectFrom('emailSends').select('id').where('toEmail', '=', to).execute()).toEqual([]);
  });

  it('with the audit row written, the change and its row are both there; a refused change (4xx) leaves neither', async () => {
    const externalId = `audit-ok-${randomUUID()}`;
    const created = await api.request('POST', '/v1/admin/contacts', { token: keptKey, body: { externalId } });
    expect(created.status, created.text).toBe(201);
    const rows = await api.deps.db.selectFrom('auditLogs').select(['action', 'resource']).where('resourceId', '=', created.body.contact.id).execute();
    expect(rows).toEqual([{ action: 'create', resource: 'contact' }]);
    const duplicate = await api.request('POST', '/v1/admin/contacts', { token: keptKey, body: { externalId } });
    expect(duplicate.status).toBe(409);
    expect(await contactsNamed(externalId)).toHaveLength(1);
  });

  it('a test send with its audit row: the email goes out and the row names the send', async () => {
    const to = uniqueAddress('audit-test-send-ok');
    const sent = await api.request('POST', '/v1/admin/templates/order-receipt/send-test', {
      token: keptKey,
      body: { to, data: { orderId: 'A-2', items: [{ name: 'Seat', quantity: 1, price: 5 }] } },
    });
    expect(sent.status, sent.text).toBe(202);
    expect(await emailsTo(to)).toHaveLength(1);
    const row = await api.deps.db.selectFrom('auditLogs').select(['resourceId', 'detail']).where('resourceId', '=', sent.body.emailSendId).executeTakeFirst();
    expect(row?.detail).toMatchObject({ templateKey: 'order-receipt', to, test: true });
  });
});
