import { randomUUID } from 'node:crypto';
import { load } from 'cheerio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSendGate } from '@waymark/core/preferences/send-gate';
import { sendEmail } from '@waymark/core/emails/send-email';
import { emailsTo, header, uniqueAddress } from '../../../../../test/email-emulator';
import { startTestApi, type TestApi } from '../../../../../test/test-api';
import { subscribeOutboxEndpoint } from '../../../../../test/webhook-endpoints';

describe('unsubscribe and preference pages', () => {
  let api: TestApi;
  let unsubscribeEndpoint: () => Promise<void>;
  beforeAll(async () => {
    api = await startTestApi();
    unsubscribeEndpoint = await subscribeOutboxEndpoint(api.deps.db, ['contact.unsubscribed']);
  });
  afterAll(async () => {
    await unsubscribeEndpoint?.();
    await api?.close();
  });

  const token = (payload: { externalId: string; email: string; action: 'unsubscribe' | 'resubscribe'; category?: string }) =>
    api.deps.email.tokens.sign(payload);
  const pathOf = (url: string) => url.replace(api.config.apiPublicUrl, '');
  const rows = (email: string) => api.deps.db.selectFrom('emailPreferences').selectAll().where('email', '=', email).execute();
  const outbound = async (email: string) =>
    (await api.deps.db.selectFrom('outboundEvents').selectAll().where('event', '=', 'contact.unsubscribed').execute()).filter(
      (row) => row.payload.email === email,
    );

  it('applies the token action table through GET /v1/email/unsubscribe, with a confirmation page linking to the preference center', async () => {
    const email = uniqueAddress('page');
    const externalId = `u-${randomUUID()}`;

    const categoryOff = await api.request(
      'GET',
      `/v1/email/unsubscribe?token=${await token({ externalId, email, action: 'unsubscribe', category: 'journey' })}`,
    );
    expect(categoryOff.status).toBe(200);
    expect(categoryOff.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const $ = load(categoryOff.text);
    expect($('h1').text()).toBe('You have been unsubscribed');
    expect($('main').text()).toContain('journey & lifecycle emails');
    const preferencesLink = $('a[href*="/v1/email/preferences?token="]').attr('href');
    expect(preferencesLink).toBeDefined();
    expect((await rows(email))[0]).toMatchObject({ userId: externalId, unsubscribedAll: false, categories: { journey: false } });

    await api.request('GET', `/v1/email/unsubscribe?token=${await token({ externalId, email, action: 'unsubscribe' })}`);
    expect((await rows(email))[0]).toMatchObject({ unsubscribedAll: true, categories: { journey: false } });

    const resubscribeCategory = await api.request(
      'GET',
      `/v1/email/unsubscribe?token=${await token({ externalId, email, action: 'resubscribe', category: 'journey' })}`,
    );
    expect(load(resubscribeCategory.text)('h1').text()).toBe('You have been resubscribed');
    expect((await rows(email))[0]).toMatchObject({ unsubscribedAll: false, categories: { journey: true } });

    await api.request('GET', `/v1/email/unsubscribe?token=${await token({ externalId, email, action: 'unsubscribe' })}`);
    await api.request('GET', `/v1/email/unsubscribe?token=${await token({ externalId, email, action: 'resubscribe' })}`);
    expect((await rows(email))[0]).toMatchObject({ unsubscribedAll: false, categories: { journey: true } });

    // contact.unsubscribed outbound events: one per actual unsubscribe (category, then global twice)
    const events = await outbound(email);
    expect(events.map((event) => event.payload.category)).toEqual(['journey', null, null]);
    expect(events[0]!.payload).toMatchObject({ userId: externalId, email, source: 'unsubscribe_page' });

    // the preference center link from the confirmation page works
    expect((await api.request('GET', pathOf(preferencesLink!))).status).toBe(200);
  });

  it('shows each category as Subscribed/Unsubscribed with toggle links, and the global switch', async () => {
    const email = uniqueAddress('prefs');
    const externalId = `u-${randomUUID()}`;
    const page = async () => load((await api.request('GET', `/v1/email/preferences?token=${await token({ externalId, email, action: 'unsubscribe' })}`)).text);

    let $ = await page();
    expect($('h1').text()).toBe('Email preferences');
    expect($('.email').first().text()).toBe(email);
    // every category of journeys/categories.ts, in its order
    expect(
      $('ul.prefs li .label')
        .map((_, label) => $(label).text())
        .get(),
    ).toEqual(['Journey & lifecycle emails', 'Product updates', 'Newsletter', 'Account & order emails']);
    const item = $('ul.prefs li').first();
    expect(item.find('.status').text()).toBe('Subscribed');
    expect(item.find('a').text()).toBe('Unsubscribe');
    expect($('a:contains("Unsubscribe from all emails")')).toHaveLength(1);

    // follow the category toggle, then the page shows Unsubscribed with a Resubscribe link
    expect((await api.request('GET', pathOf(item.find('a').attr('href')!))).status).toBe(200);
    $ = await page();
    expect($('ul.prefs li .status').first().text()).toBe('Unsubscribed');
    expect($('ul.prefs li a').first().text()).toBe('Resubscribe');
    // the other categories are untouched
    expect($('ul.prefs li .status').eq(1).text()).toBe('Subscribed');

    // global unsubscribe via its link, then resubscribe via the new link
    await api.request('GET', pathOf($('a:contains("Unsubscribe from all emails")').attr('href')!));
    $ = await page();
    expect($('main').text()).toContain('unsubscribed from all emails');
    expect(await checkSendGate(api.deps.db, email, 'journey')).toMatchObject({ allowed: false });
    await api.request('GET', pathOf($('a:contains("Resubscribe to emails")').attr('href')!));
    await api.request('GET', pathOf((await page())('ul.prefs li a').first().attr('href')!));
    expect(await checkSendGate(api.deps.db, email, 'journey')).toEqual({ allowed: true });
  });

  it('a required category: no toggle, its unsubscribe link changes nothing, and its emails reach a person unsubscribed from all', async () => {
    const to = uniqueAddress('required');
    const userId = `u-${randomUUID()}`;
    const unsubscribeAll = await token({ externalId: userId, email: to, action: 'unsubscribe' });
    expect((await api.request('GET', `/v1/email/unsubscribe?token=${unsubscribeAll}`)).status).toBe(200);

    const $ = load((await api.request('GET', `/v1/email/preferences?token=${unsubscribeAll}`)).text);
    const item = $('ul.prefs li').filter((_, li) => $(li).find('.label').text() === 'Account & order emails');
    expect(item).toHaveLength(1);
    expect(item.find('a')).toHaveLength(0);
    expect(item.find('.status').text()).toBe('Always sent');
    expect(item.text()).toContain('You asked for these emails, so unsubscribing does not stop them.');
    expect($('main').text()).toContain('except Account & order emails: you asked for those');
    // every other category keeps its toggle
    expect($('ul.prefs li a')).toHaveLength(3);

    // a journey email is blocked, a password reset is not
    expect(await sendEmail(api.deps.email, { templateKey: 'welcome', to, userId, idempotencyKey: randomUUID() })).toEqual({
      status: 'skipped',
      reason: 'unsubscribed_all',
    });
    const reset = await sendEmail(api.deps.email, {
      templateKey: 'auth-password-reset',
      to,
      userId,
      data: { resetUrl: 'https://studio.example.com/reset?token=t' },
      idempotencyKey: randomUUID(),
    });
    expect(reset.status).toBe('sent');
    const [message] = await emailsTo(to);
    expect(message!.subject).toBe('Reset your Waymark password');

    // the unsubscribe link of that email (a token of the required category) changes nothing, and says so
    const target = header(message!, 'List-Unsubscribe')!.slice(1, -1);
    const page = await api.request('GET', pathOf(target));
    expect(page.status).toBe(200);
    expect(load(page.text)('h1').text()).toBe('Account & order emails are always sent');
    const oldToggle = await token({ externalId: userId, email: to, action: 'unsubscribe', category: 'transactional' });
    expect((await api.request('GET', `/v1/email/unsubscribe?token=${oldToggle}`)).status).toBe(200);
    expect((await rows(to)).map((row) => row.categories)).toEqual([{}]);
    expect(
      await sendEmail(api.deps.email, {
        templateKey: 'auth-password-reset',
        to,
        userId,
        data: { resetUrl: 'https://studio.example.com/r' },
        idempotencyKey: randomUUID(),
      }),
    ).toMatchObject({ status: 'sent' });

    // suppression (bounces, complaints) still stops it
    await api.deps.db.updateTable('emailPreferences').set({ suppressed: true }).where('email', '=', to).execute();
    expect(await checkSendGate(api.deps.db, to, api.deps.categories.find('transactional')!)).toEqual({ allowed: false, reason: 'suppressed' });
  });

  it('escapes what it shows', async () => {
    const email = `"><script>alert(1)</script>@example.com`;
    const response = await api.request('GET', `/v1/email/preferences?token=${await token({ externalId: 'x', email, action: 'unsubscribe' })}`);
    expect(response.status).toBe(200);
    expect(response.text).not.toContain('<script>');
    expect(response.text).toContain('&#34;&#62;&#60;script&#62;');
  });

  it.each([
    ['missing', ''],
    ['empty', '?token='],
    ['garbage', '?token=abc'],
    ['tampered', 'TAMPER'],
  ])('answers a 400 HTML page for a %s token on both pages and the one-click POST', async (_name, query) => {
    let search = query;
    if (query === 'TAMPER') {
      const valid = await token({ externalId: 'u', email: uniqueAddress(), action: 'unsubscribe' });
      search = `?token=${valid.slice(0, -3)}abc`;
    }
    for (const [method, path] of [
      ['GET', '/v1/email/unsubscribe'],
      ['GET', '/v1/email/preferences'],
      ['POST', '/v1/email/unsubscribe'],
    ] as const) {
      const response = await api.request(method, `${path}${search}`);
      expect(response.status, `${method} ${path}`).toBe(400);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(load(response.text)('h1').text()).toBe('This link is not valid');
    }
  });

  it('performs RFC 8058 one-click unsubscribe from the List-Unsubscribe header of a sent email', async () => {
    const to = uniqueAddress('oneclick');
    const userId = `u-${randomUUID()}`;
    const sent = await sendEmail(api.deps.email, { templateKey: 'welcome', to, userId, idempotencyKey: randomUUID() });
    expect(sent.status).toBe('sent');
    const [message] = await emailsTo(to);
    const target = header(message!, 'List-Unsubscribe')!.slice(1, -1);
    const response = await fetch(`${api.url}${pathOf(target)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(response.status).toBe(200);
    expect(await checkSendGate(api.deps.db, to, 'journey')).toEqual({ allowed: false, reason: 'category_unsubscribed' });
    expect((await outbound(to))[0]!.payload).toMatchObject({ userId, category: 'journey', source: 'one_click' });
    // the next journey email is skipped
    expect(await sendEmail(api.deps.email, { templateKey: 'welcome-tips', to, userId, idempotencyKey: randomUUID() })).toMatchObject({ status: 'skipped' });
    // multipart one-click works too
    const form = new FormData();
    form.set('List-Unsubscribe', 'One-Click');
    expect((await fetch(`${api.url}${pathOf(target)}`, { method: 'POST', body: form })).status).toBe(200);
  });

  it('the footer unsubscribe link of a sent email works and is not tracked', async () => {
    const to = uniqueAddress('footer');
    await sendEmail(api.deps.email, { templateKey: 'welcome', to, idempotencyKey: randomUUID() });
    const [message] = await emailsTo(to);
    const href = load(message!.body.html!)('a:contains("Unsubscribe")').attr('href')!;
    expect(href).toContain('/v1/email/unsubscribe?token=');
    expect((await api.request('GET', pathOf(href))).status).toBe(200);
    expect(await checkSendGate(api.deps.db, to, 'journey')).toMatchObject({ allowed: false });
  });
});
