import { randomUUID } from 'node:crypto';
import { load } from 'cheerio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailsTo, header, uniqueAddress } from '../../../../../test/email-emulator';
import { issueApiKey, startTestApi, type TestApi } from '../../../../../test/test-api';
import { integrationEnv } from '../../../../../test/test-env';
import { startThrottlingSesProxy, type ThrottlingSesProxy } from '../../../../../test/throttling-ses-proxy';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

/**
 * POST /v1/emails over HTTP with the real stack: the send answers once the provider accepted the
 * message (the send path is synchronous), so the emulator store can be read right after the 202.
 */
describe('POST /v1/emails (transactional send)', () => {
  let api: TestApi;
  let ingestKey: string;
  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY });
    ingestKey = await issueApiKey(api, LEGACY, 'data-emails-ingest', ['ingest']);
  });
  afterAll(() => api?.close());

  const receipt = (orderId: string) => ({
    orderId,
    items: [
      { name: 'Pro plan (monthly)', quantity: 1, price: 29 },
      { name: 'Extra seat', quantity: 2, price: 5 },
    ],
    currency: 'USD',
    orderUrl: `https://shop.example.com/orders/${orderId}`,
  });
  const send = (body: Record<string, unknown>, headers: Record<string, string> = {}) => api.request('POST', '/v1/emails', { token: ingestKey, body, headers });

  it('an ingest key sends a template: 202 with the send id; the email arrives with tracked links, the pixel and List-Unsubscribe headers', async () => {
    const to = uniqueAddress('tx');
    const orderId = `A-${randomUUID().slice(0, 8)}`;
    const userId = `tx-${randomUUID()}`;

    const response = await send({ templateKey: 'order-receipt', to, userId, data: receipt(orderId) });

    expect(response.status).toBe(202);
    expect(response.body).toEqual({ emailSendId: expect.stringMatching(/^[0-9a-f-]{36}$/), status: 'sent' });
    const id = response.body.emailSendId as string;
    const row = await api.deps.db.selectFrom('emailSends').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      templateKey: 'order-receipt',
      toEmail: to,
      userId,
      category: 'transactional',
      status: 'sent',
      subject: `Your receipt for order ${orderId}`,
    });

    const emails = await emailsTo(to);
    expect(emails).toHaveLength(1);
    const email = emails[0]!;
    expect(email).toMatchObject({
      messageId: row.providerMessageId,
      subject: `Your receipt for order ${orderId}`,
      from: 'Waymark Tests <tests@waymark.local>',
    });
    expect(email.body.text).toContain(`Order ${orderId}`);
    expect(email.body.text).toContain('$39.00');

    // the order link is rewritten to a tracked link of this send; the original URL is not in the HTML
    const publicUrl = api.config.apiPublicUrl;
    const $ = load(email.body.html!);
    const button = $('a:contains("View your order")').attr('href')!;
    expect(button).toMatch(new RegExp(`^${publicUrl}/v1/t/c/[0-9a-f-]{36}$`));
    expect(email.body.html).not.toContain(`https://shop.example.com/orders/${orderId}`);
    const links = await api.deps.db.selectFrom('trackedLinks').select(['id', 'originalUrl']).where('emailSendId', '=', id).execute();
    expect(links).toContainEqual({ id: button.split('/').pop(), originalUrl: `https://shop.example.com/orders/${orderId}` });
    expect($(`img[src="${publicUrl}/v1/t/o/${id}"]`)).toHaveLength(1);

    const listUnsubscribe = header(email, 'List-Unsubscribe');
    expect(listUnsubscribe).toMatch(new RegExp(`^<${publicUrl}/v1/email/unsubscribe\\?token=[\\w.%-]+>$`));
    expect(header(email, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
    expect($('a:contains("Unsubscribe")').attr('href')).toBe(listUnsubscribe!.slice(1, -1));
  });

  it('the same Idempotency-Key again sends no second email and answers the same id', async () => {
    const to = uniqueAddress('tx-idem');
    const key = `order-${randomUUID()}`;
    const body = { templateKey: 'order-receipt', to, data: receipt('B-1') };

    const first = await send(body, { 'idempotency-key': key });
    const second = await send(body, { 'idempotency-key': key });
    // the key in the body names the same send as the header
    const third = await send({ ...body, idempotencyKey: key });

    expect(first).toMatchObject({ status: 202, body: { status: 'sent' } });
    expect(second.body).toEqual(first.body);
    expect(third.body).toEqual(first.body);
    expect(await emailsTo(to)).toHaveLength(1);
    expect(await api.deps.db.selectFrom('emailSends').select('id').where('toEmail', '=', to).execute()).toEqual([{ id: first.body.emailSendId }]);

    // a different key is a different send
    const other = await send(body, { 'idempotency-key': `order-${randomUUID()}` });
    expect(other).toMatchObject({ status: 202, body: { status: 'sent' } });
    expect(other.body.emailSendId).not.toBe(first.body.emailSendId);
    expect(await emailsTo(to)).toHaveLength(2);
  });

  it.each([
    ['suppressed (bounced)', 'bounced', 'suppressed'],
    ['unsubscribed from everything', 'unsubscribed', 'unsubscribed_all'],
  ])('%s address → 202 skipped, no send id, nothing at the emulator', async (_name, reason, skippedBecause) => {
    const to = uniqueAddress('tx-blocked');
    const imported = await api.request('POST', '/v1/admin/suppressions/import', { token: LEGACY, body: { rows: [{ email: to, reason }] } });
    expect(imported).toMatchObject({ status: 200, body: { applied: 1 } });

    // a category a person may leave: the receipt's own (`transactional`) is required, which only
    // suppression blocks (docs/email.md, "Required categories")
    const response = await send({ templateKey: 'order-receipt', to, data: receipt('C-1'), category: 'newsletter' });

    expect(response).toMatchObject({ status: 202, body: { emailSendId: null, status: 'skipped', reason: skippedBecause } });
    expect(await emailsTo(to)).toHaveLength(0);
    expect(await api.deps.db.selectFrom('emailSends').select('id').where('toEmail', '=', to).execute()).toHaveLength(0);
  });

  it('one-click unsubscribe through the List-Unsubscribe header skips the next send of that category', async () => {
    const to = uniqueAddress('tx-oneclick');
    // sent as a newsletter: a required category's List-Unsubscribe changes nothing (docs/email.md, "Required categories")
    expect((await send({ templateKey: 'order-receipt', to, data: receipt('D-1'), category: 'newsletter' })).body.status).toBe('sent');
    const [email] = await emailsTo(to);
    const target = header(email!, 'List-Unsubscribe')!.slice(1, -1).replace(api.config.apiPublicUrl, api.url);

    // what a mail client does (RFC 8058): a form POST to the header's URL
    const oneClick = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(oneClick.status).toBe(200);

    const next = await send({ templateKey: 'order-receipt', to, data: receipt('D-2'), category: 'newsletter' });
    expect(next).toMatchObject({ status: 202, body: { emailSendId: null, status: 'skipped', reason: 'category_unsubscribed' } });
    expect(await emailsTo(to)).toHaveLength(1);
  });

  it('the List-Unsubscribe URL answers a body it cannot read with a 400 {error}, not a 500, and changes nothing', async () => {
    const to = uniqueAddress('tx-badbody');
    expect((await send({ templateKey: 'order-receipt', to, data: receipt('E-1') })).body.status).toBe('sent');
    const [email] = await emailsTo(to);
    const target = header(email!, 'List-Unsubscribe')!.slice(1, -1).replace(api.config.apiPublicUrl, api.url);

    for (const body of ['List-Unsubscribe=One-Click', '{"List-Unsubscribe": ', '']) {
      const response = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(response.status, `body ${JSON.stringify(body)}`).toBe(400);
      expect(await response.json()).toEqual({ error: expect.any(String) });
    }
    expect(await send({ templateKey: 'order-receipt', to, data: receipt('E-2') })).toMatchObject({ status: 202, body: { status: 'sent' } });
  });

  it('an unknown template → 400 and nothing is recorded or sent', async () => {
    const to = uniqueAddress('tx-unknown');
    const response = await send({ templateKey: `no-such-template-${randomUUID()}`, to, data: {} });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(/^Unknown email template "no-such-template-/);
    expect(await api.deps.db.selectFrom('emailSends').select('id').where('toEmail', '=', to).execute()).toHaveLength(0);
    expect(await emailsTo(to)).toHaveLength(0);
  });
});

/**
 * The retry the 503 asks for (same Idempotency-Key) asks the send gate again: an address
 * suppressed since the failed attempt is refused as on a first attempt (docs/email.md, "Exactly
 * once"). SES, through a proxy in front of the emulator, refuses the first call.
 */
describe('POST /v1/emails retried after a provider error', () => {
  let proxy: ThrottlingSesProxy;
  let api: TestApi;
  let ingestKey: string;
  beforeAll(async () => {
    proxy = await startThrottlingSesProxy({ target: integrationEnv().SES_ENDPOINT });
    api = await startTestApi({ ADMIN_API_KEY: LEGACY, SES_ENDPOINT: proxy.url });
    ingestKey = await issueApiKey(api, LEGACY, 'data-emails-retry', ['ingest']);
  });
  afterAll(async () => {
    await api?.close();
    await proxy?.close();
  });

  it('an address suppressed between the attempts → 202 skipped as on a first attempt, the send ends cancelled, nothing reaches SES', async () => {
    const to = uniqueAddress('tx-retry');
    const body = { templateKey: 'order-receipt', to, data: { orderId: 'R-1', items: [{ name: 'Seat', quantity: 1, price: 5 }], currency: 'USD' } };
    const headers = { 'idempotency-key': `order-${randomUUID()}` };
    proxy.throttleNext(1);
    const first = await api.request('POST', '/v1/emails', { token: ingestKey, body, headers });
    expect(first.status).toBe(503);
    expect(first.body.error).toMatch(/retry with the same Idempotency-Key/);

    // a complaint about another email suppresses the address (the receipt's category is required: only suppression stops it)
    const imported = await api.request('POST', '/v1/admin/suppressions/import', { token: LEGACY, body: { rows: [{ email: to, reason: 'complained' }] } });
    expect(imported).toMatchObject({ status: 200, body: { applied: 1 } });
    const sendsBefore = proxy.counts().sends;

    const retry = await api.request('POST', '/v1/emails', { token: ingestKey, body, headers });
    expect(retry).toMatchObject({ status: 202, body: { emailSendId: null, status: 'skipped', reason: 'suppressed' } });
    expect(proxy.counts().sends).toBe(sendsBefore);
    expect(await emailsTo(to)).toHaveLength(0);
    const rows = await api.deps.db.selectFrom('emailSends').select(['status', 'errorMessage']).where('toEmail', '=', to).execute();
    expect(rows).toEqual([{ status: 'cancelled', errorMessage: 'suppressed' }]);
  });
});

/**
 * An ingest key is a product backend's credential: a provider it cannot reach is answered by the
 * socket error's code, never its message, which names the provider's address (docs/security.md).
 */
describe('POST /v1/emails with the email provider unreachable', () => {
  let api: TestApi;
  let ingestKey: string;
  beforeAll(async () => {
    // an api on the same database whose SES endpoint refuses connections
    api = await startTestApi({ ADMIN_API_KEY: LEGACY, SES_ENDPOINT: 'http://127.0.0.1:9' });
    ingestKey = await issueApiKey(api, LEGACY, 'data-emails-unreachable', ['ingest']);
  });
  afterAll(async () => {
    await api?.close();
  });

  it("→ 503 naming the failure's code, not the provider's address; the operator's row keeps the whole message", async () => {
    const to = uniqueAddress('tx-unreachable');
    const body = { templateKey: 'order-receipt', to, data: { orderId: 'R-2', items: [{ name: 'Seat', quantity: 1, price: 5 }], currency: 'USD' } };
    const answer = await api.request('POST', '/v1/emails', { token: ingestKey, body, headers: { 'idempotency-key': `order-${randomUUID()}` } });
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual({ error: 'The email provider could not be reached (ECONNREFUSED); retry with the same Idempotency-Key' });
    expect(answer.text).not.toContain('127.0.0.1');
    const rows = await api.deps.db.selectFrom('emailSends').select(['status', 'errorMessage']).where('toEmail', '=', to).execute();
    expect(rows).toEqual([{ status: 'rendered', errorMessage: expect.stringContaining('ECONNREFUSED 127.0.0.1:9') }]);
  });
});
