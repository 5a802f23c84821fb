import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendEmail } from '@waymark/core/emails/send-email';
import { checkSendGate } from '@waymark/core/preferences/send-gate';
import { uniqueAddress } from '../../../../../test/email-emulator';
import { startTestApi, type TestApi } from '../../../../../test/test-api';
import { subscribeOutboxEndpoint } from '../../../../../test/webhook-endpoints';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

describe('admin: emails, contact preferences, suppression import', () => {
  let api: TestApi;
  let readKey: string;
  let unsubscribeEndpoint: () => Promise<void>;
  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY });
    const created = await api.request('POST', '/v1/admin/api-keys', { token: LEGACY, body: { name: 'reader', scopes: ['read'] } });
    readKey = created.body.key;
    // an endpoint takes these types, so unsubscribes write outbox rows (and a quiet import must not)
    unsubscribeEndpoint = await subscribeOutboxEndpoint(api.deps.db, ['contact.unsubscribed', 'contact.suppressed', 'contact.resubscribed']);
  });
  afterAll(async () => {
    await unsubscribeEndpoint?.();
    await api?.close();
  });

  const get = (path: string, token = LEGACY) => api.request('GET', path, { token });

  describe('GET /v1/admin/emails', () => {
    it('lists sends newest first with every filter, and shows detail with tracked links, clicks and journey context', async () => {
      const to = uniqueAddress('admin');
      const state = await api.deps.db
        .insertInto('journeyStates')
        .values({
          journeyId: 'welcome-series',
          userId: `u-${randomUUID()}`,
          userEmail: to,
          workflowId: `wf-${randomUUID()}`,
          currentNodeId: 'welcome',
          context: '{}',
        })
        .returning(['id', 'userId'])
        .executeTakeFirstOrThrow();
      const first = await sendEmail(api.deps.email, {
        templateKey: 'welcome',
        to,
        userId: state.userId,
        journeyStateId: state.id,
        idempotencyKey: randomUUID(),
      });
      const second = await sendEmail(api.deps.email, { templateKey: 'welcome-tips', to: to.toUpperCase(), idempotencyKey: randomUUID() });

      const list = await get(`/v1/admin/emails?toEmail=${encodeURIComponent(to)}`, readKey);
      expect(list.status).toBe(200);
      expect(list.body).toMatchObject({ total: 2, limit: 50, offset: 0 });
      expect(list.body.emails.map((email: { id: string }) => email.id)).toEqual([second.emailSendId, first.emailSendId]);
      expect(Object.keys(list.body.emails[0]).sort()).toEqual(
        [
          'id',
          'journeyStateId',
          'templateKey',
          'providerMessageId',
          'fromEmail',
          'toEmail',
          'subject',
          'category',
          'locale',
          'status',
          'sentAt',
          'deliveredAt',
          'openedAt',
          'clickedAt',
          'humanOpenedAt',
          'humanClickedAt',
          'opens',
          'clicks',
          'bouncedAt',
          'complainedAt',
          'createdAt',
          'updatedAt',
        ].sort(),
      );
      expect(list.body.emails[0]).toMatchObject({
        humanOpenedAt: null,
        humanClickedAt: null,
        opens: { human: 0, machine: 0 },
        clicks: { human: 0, machine: 0 },
      });
      expect(list.body.emails[1]).toMatchObject({ templateKey: 'welcome', status: 'sent', category: 'journey', journeyStateId: state.id, toEmail: to });

      expect((await get(`/v1/admin/emails?toEmail=${encodeURIComponent(to)}&templateKey=welcome`)).body.total).toBe(1);
      expect((await get(`/v1/admin/emails?toEmail=${encodeURIComponent(to)}&status=sent`)).body.total).toBe(2);
      expect((await get(`/v1/admin/emails?toEmail=${encodeURIComponent(to)}&status=failed`)).body.total).toBe(0);
      expect((await get(`/v1/admin/emails?toEmail=${encodeURIComponent(to)}&from=2999-01-01T00:00:00Z`)).body.total).toBe(0);
      expect((await get(`/v1/admin/emails?toEmail=${encodeURIComponent(to)}&to=2000-01-01T00:00:00Z`)).body.total).toBe(0);
      const page = await get(`/v1/admin/emails?toEmail=${encodeURIComponent(to)}&limit=1&offset=1`);
      expect(page.body).toMatchObject({ total: 2, limit: 1, offset: 1 });
      expect(page.body.emails[0].id).toBe(first.emailSendId);

      const link = await api.deps.db.selectFrom('trackedLinks').selectAll().where('emailSendId', '=', first.emailSendId!).executeTakeFirstOrThrow();
      await api.request('GET', `/v1/t/c/${link.id}`, { headers: { 'x-forwarded-for': '192.0.2.1', 'user-agent': 'UA/1' } });
      const detail = await get(`/v1/admin/emails/${first.emailSendId}`, readKey);
      expect(detail.status).toBe(200);
      expect(detail.body.email).toMatchObject({ id: first.emailSendId, status: 'clicked' });
      // the response schema alone decides the wire fields: internal columns (data, keys, attempts) stay in
      expect(Object.keys(detail.body.email).sort()).toEqual(Object.keys(list.body.emails[0]).sort());
      expect(detail.body.trackedLinks).toEqual([
        {
          id: link.id,
          originalUrl: link.originalUrl,
          clickCount: 1,
          honeypot: false,
          clicks: [{ id: expect.any(String), clickedAt: expect.any(String), ipAddress: '192.0.2.1', userAgent: 'UA/1', machine: false, machineReason: null }],
        },
      ]);
      expect(detail.body.journeyContext).toEqual({ journeyId: 'welcome-series', userId: state.userId, status: 'active', currentNodeId: 'welcome' });
      expect((await get(`/v1/admin/emails/${second.emailSendId}`)).body.journeyContext).toBeNull();
    });

    it.each([
      ['/v1/admin/emails?status=lost', 400],
      ['/v1/admin/emails?limit=0', 400],
      ['/v1/admin/emails?limit=101', 400],
      ['/v1/admin/emails?from=yesterday', 400],
      ['/v1/admin/emails/not-a-uuid', 400],
      [`/v1/admin/emails/${randomUUID()}`, 404],
    ])('GET %s → %i {error}', async (path, status) => {
      const response = await get(path);
      expect(response.status).toBe(status);
      expect(typeof response.body.error).toBe('string');
    });
  });

  describe('contact preferences', () => {
    async function contact(email: string | null) {
      return api.deps.db
        .insertInto('contacts')
        .values({ externalId: `c-${randomUUID()}`, email, properties: '{}' })
        .returning(['id', 'externalId'])
        .executeTakeFirstOrThrow();
    }

    it('GET 404s for an unknown contact and for a contact without preferences (its own GET shows preferences: null); PUT upserts and merges; GET by id or externalId', async () => {
      const email = uniqueAddress('prefs');
      const row = await contact(email);
      expect(await get(`/v1/admin/contacts/${randomUUID()}/preferences`)).toMatchObject({ status: 404, body: { error: 'Contact not found' } });
      // the contract: 404 when the contact or its preferences are missing (the studio shows the defaults then)
      const none = await get(`/v1/admin/contacts/${row.id}/preferences`);
      expect({ status: none.status, body: none.body }).toEqual({ status: 404, body: { error: 'Preferences not found' } });
      expect((await get(`/v1/admin/contacts/${row.externalId}`)).body.preferences).toBeNull();

      const put = await api.request('PUT', `/v1/admin/contacts/${row.externalId}/preferences`, { token: LEGACY, body: { categories: { journey: false } } });
      expect(put.status).toBe(200);
      expect(put.body).toMatchObject({
        userId: row.externalId,
        email,
        unsubscribedAll: false,
        suppressed: false,
        bounceCount: 0,
        categories: { journey: false },
        suppressedAt: null,
        lastBounceAt: null,
      });

      const again = await api.request('PUT', `/v1/admin/contacts/${row.id}/preferences`, {
        token: LEGACY,
        body: { unsubscribedAll: true, suppressed: true, categories: { 'product-updates': true } },
      });
      expect(again.body).toMatchObject({ id: put.body.id, unsubscribedAll: true, suppressed: true, categories: { journey: false, 'product-updates': true } });
      expect(again.body.suppressedAt).toEqual(expect.any(String));
      expect((await get(`/v1/admin/contacts/${row.id}/preferences`, readKey)).body.preferences).toEqual(again.body);

      const cleared = await api.request('PUT', `/v1/admin/contacts/${row.id}/preferences`, { token: LEGACY, body: { suppressed: false } });
      expect(cleared.body).toMatchObject({ suppressed: false, suppressedAt: null, unsubscribedAll: true });

      const outbound = (
        await api.deps.db.selectFrom('outboundEvents').selectAll().where('event', '=', 'contact.unsubscribed').orderBy('createdAt').execute()
      ).filter((event) => event.payload.email === email);
      expect(outbound.map((event) => [event.payload.category, event.payload.source])).toEqual([
        ['journey', 'admin'],
        [null, 'admin'],
      ]);
      const audit = await get(`/v1/admin/audit-logs?resource=contact&action=update&limit=100`);
      expect(audit.body.logs.some((log: { resourceId: string }) => log.resourceId === row.id)).toBe(true);
    });

    it('PUT answers 400 for a contact without email, 404 for an unknown contact, 400 for bad bodies, 403 for a read key', async () => {
      const row = await api.deps.db
        .insertInto('contacts')
        .values({ externalId: `c-${randomUUID()}`, email: null, properties: '{}' })
        .returning('id')
        .executeTakeFirstOrThrow();
      expect(await api.request('PUT', `/v1/admin/contacts/${row.id}/preferences`, { token: LEGACY, body: { unsubscribedAll: true } })).toMatchObject({
        status: 400,
        body: { error: 'Contact has no email' },
      });
      expect(await api.request('PUT', `/v1/admin/contacts/${randomUUID()}/preferences`, { token: LEGACY, body: {} })).toMatchObject({ status: 404 });
      for (const body of [{ unsubscribedAll: 'yes' }, { categories: { journey: 'off' } }, { unknown: true }, []]) {
        expect((await api.request('PUT', `/v1/admin/contacts/${row.id}/preferences`, { token: LEGACY, body })).status).toBe(400);
      }
      expect((await api.request('PUT', `/v1/admin/contacts/${row.id}/preferences`, { token: readKey, body: {} })).status).toBe(403);
    });
  });

  describe('POST /v1/admin/suppressions/import', () => {
    const importRows = (rows: unknown[], token = LEGACY) => api.request('POST', '/v1/admin/suppressions/import', { token, body: { rows } });

    it('applies unsubscribed / bounced / complained rows, is idempotent and quiet, and works without contacts', async () => {
      const unsub = uniqueAddress('imp-unsub');
      const bounced = uniqueAddress('imp-bounce');
      const complained = uniqueAddress('imp-complaint');
      const rows = [
        { email: unsub },
        { email: bounced, reason: 'bounced', externalId: `x-${randomUUID()}` },
        { email: complained, reason: 'complained' },
        { email: 'not-an-email' },
        { email: unsub, reason: 'lost' },
      ];
      const first = await importRows(rows);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ total: 5, applied: 3, unchanged: 0, failed: 2 });
      expect(first.body.errors.map((error: { row: number }) => error.row)).toEqual([3, 4]);

      const second = await importRows(rows);
      expect(second.body).toMatchObject({ total: 5, applied: 0, unchanged: 3, failed: 2 });

      const pref = (email: string) => api.deps.db.selectFrom('emailPreferences').selectAll().where('email', '=', email).executeTakeFirstOrThrow();
      expect(await pref(unsub)).toMatchObject({ unsubscribedAll: true, suppressed: false });
      expect(await pref(bounced)).toMatchObject({ suppressed: true, suppressionReason: 'bounced', bounceCount: 1 });
      expect(await pref(complained)).toMatchObject({ suppressed: true, suppressionReason: 'complained' });
      for (const email of [unsub, bounced, complained]) expect((await checkSendGate(api.deps.db, email, 'journey')).allowed).toBe(false);
      const outbound = (await api.deps.db.selectFrom('outboundEvents').selectAll().execute()).filter((event) =>
        [unsub, bounced, complained].includes(event.payload.email as string),
      );
      expect(outbound).toHaveLength(0);
    });

    it('is full-admin only and validates the envelope', async () => {
      expect((await importRows([{ email: uniqueAddress() }], readKey)).status).toBe(403);
      expect((await importRows([])).status).toBe(400);
      expect((await api.request('POST', '/v1/admin/suppressions/import', { token: LEGACY, body: [{ email: 'a@b.c' }] })).status).toBe(400);
      expect((await api.request('POST', '/v1/admin/suppressions/import', { token: LEGACY, body: { rows: 'a@b.c' } })).status).toBe(400);
    });
  });
});
