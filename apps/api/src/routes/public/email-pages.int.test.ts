import { randomUUID } from 'node:crypto';
import { load, type CheerioAPI } from 'cheerio';
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
  // submit a page's form as a browser does: POST its action with its fields, form-encoded
  const submit = ($: CheerioAPI, form: ReturnType<CheerioAPI>) => {
    const fields = new URLSearchParams(
      form
        .find('input')
        .map((_, input) => [[$(input).attr('name')!, $(input).attr('value') ?? '']])
        .get() as [string, string][],
    );
    return api.request('POST', pathOf(form.attr('action')!), { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: fields.toString() });
  };
  // open an unsubscribe link (which only asks), then press its one button
  const confirmLink = async (path: string) => {
    const question = await api.request('GET', path);
    expect(question.status).toBe(200);
    const $ = load(question.text);
    return submit($, $('form'));
  };
  const outbound = async (email: string) =>
    (await api.deps.db.selectFrom('outboundEvents').selectAll().where('event', '=', 'contact.unsubscribed').execute()).filter(
      (row) => row.payload.email === email,
    );

  it("GET and HEAD of an unsubscribe link only ask; the page's button (a POST to the same URL) applies the token action table", async () => {
    const email = uniqueAddress('page');
    const externalId = `u-${randomUUID()}`;
    const categoryToken = await token({ externalId, email, action: 'unsubscribe', category: 'journey' });

    // a link scanner fetching the link (GET, HEAD, again and again) changes nothing
    for (const method of ['GET', 'HEAD', 'GET'] as const) {
      const visit = await api.request(method, `/v1/email/unsubscribe?token=${categoryToken}`);
      expect(visit.status, method).toBe(200);
      expect(visit.headers.get('content-type')).toBe('text/html; charset=utf-8');
    }
    expect(await rows(email)).toEqual([]);
    expect(await outbound(email)).toEqual([]);
    const $question = load((await api.request('GET', `/v1/email/unsubscribe?token=${categoryToken}`)).text);
    expect($question('h1').text()).toBe('Unsubscribe from journey & lifecycle emails?');
    // one button, posting to the link's own URL, and the preference center
    expect($question('form')).toHaveLength(1);
    expect($question('form').attr('method')).toBe('post');
    expect(pathOf($question('form').attr('action')!)).toBe(`/v1/email/unsubscribe?token=${categoryToken}`);
    expect($question('form button').text()).toBe('Unsubscribe');
    expect($question('a[href*="/v1/email/preferences?token="]')).toHaveLength(1);

    const categoryOff = await submit($question, $question('form'));
    expect(categoryOff.status).toBe(200);
    expect(categoryOff.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const $ = load(categoryOff.text);
    expect($('h1').text()).toBe('You are unsubscribed');
    expect($('main').text()).toContain('journey & lifecycle emails');
    const preferencesLink = $('a[href*="/v1/email/preferences?token="]').attr('href');
    expect(preferencesLink).toBeDefined();
    expect((await rows(email))[0]).toMatchObject({ userId: externalId, unsubscribedAll: false, categories: { journey: false } });

    // the Undo button takes it back
    expect($('form button').text()).toBe('Undo');
    const undone = await submit($, $('form'));
    expect(load(undone.text)('h1').text()).toBe('You are resubscribed');
    expect((await rows(email))[0]).toMatchObject({ unsubscribedAll: false, categories: { journey: true } });
    await confirmLink(`/v1/email/unsubscribe?token=${categoryToken}`);

    await confirmLink(`/v1/email/unsubscribe?token=${await token({ externalId, email, action: 'unsubscribe' })}`);
    expect((await rows(email))[0]).toMatchObject({ unsubscribedAll: true, categories: { journey: false } });

    const resubscribeCategory = await confirmLink(
      `/v1/email/unsubscribe?token=${await token({ externalId, email, action: 'resubscribe', category: 'journey' })}`,
    );
    expect(load(resubscribeCategory.text)('h1').text()).toBe('You are resubscribed');
    expect((await rows(email))[0]).toMatchObject({ unsubscribedAll: false, categories: { journey: true } });

    await confirmLink(`/v1/email/unsubscribe?token=${await token({ externalId, email, action: 'unsubscribe' })}`);
    await confirmLink(`/v1/email/unsubscribe?token=${await token({ externalId, email, action: 'resubscribe' })}`);
    expect((await rows(email))[0]).toMatchObject({ unsubscribedAll: false, categories: { journey: true } });

    // contact.unsubscribed outbound events: one per actual unsubscribe (category twice, then global twice)
    const events = await outbound(email);
    expect(events.map((event) => event.payload.category)).toEqual(['journey', 'journey', null, null]);
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
    expect(item.find('form').attr('method')).toBe('post');
    expect(item.find('button').text()).toBe('Unsubscribe');
    expect($('button:contains("Unsubscribe from all emails")')).toHaveLength(1);
    // the page has no link that changes anything: every toggle is a form
    expect($('a[href*="/v1/email/unsubscribe"]')).toHaveLength(0);

    // press the category toggle, then the page shows Unsubscribed with a Resubscribe button
    expect((await submit($, item.find('form'))).status).toBe(200);
    expect((await outbound(email))[0]!.payload).toMatchObject({ category: 'journey', source: 'preference_center' });
    $ = await page();
    expect($('ul.prefs li .status').first().text()).toBe('Unsubscribed');
    expect($('ul.prefs li button').first().text()).toBe('Resubscribe');
    // the other categories are untouched
    expect($('ul.prefs li .status').eq(1).text()).toBe('Subscribed');

    // global unsubscribe via its button, then resubscribe via the new one
    await submit($, $('form:has(button:contains("Unsubscribe from all emails"))'));
    $ = await page();
    expect($('main').text()).toContain('unsubscribed from all emails');
    expect(await checkSendGate(api.deps.db, email, 'journey')).toMatchObject({ allowed: false });
    await submit($, $('form:has(button:contains("Resubscribe to emails"))'));
    $ = await page();
    await submit($, $('ul.prefs li form').first());
    expect(await checkSendGate(api.deps.db, email, 'journey')).toEqual({ allowed: true });
  });

  it('a required category: no toggle, its unsubscribe link changes nothing, and its emails reach a person unsubscribed from all', async () => {
    const to = uniqueAddress('required');
    const userId = `u-${randomUUID()}`;
    const unsubscribeAll = await token({ externalId: userId, email: to, action: 'unsubscribe' });
    expect((await confirmLink(`/v1/email/unsubscribe?token=${unsubscribeAll}`)).status).toBe(200);

    const $ = load((await api.request('GET', `/v1/email/preferences?token=${unsubscribeAll}`)).text);
    const item = $('ul.prefs li').filter((_, li) => $(li).find('.label').text() === 'Account & order emails');
    expect(item).toHaveLength(1);
    expect(item.find('form')).toHaveLength(0);
    expect(item.find('.status').text()).toBe('Always sent');
    expect(item.text()).toContain('You asked for these emails, so unsubscribing does not stop them.');
    expect($('main').text()).toContain('except Account & order emails: you asked for those');
    // every other category keeps its toggle
    expect($('ul.prefs li form')).toHaveLength(3);

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
    expect(load(page.text)('form')).toHaveLength(0);
    const oldToggle = await token({ externalId: userId, email: to, action: 'unsubscribe', category: 'transactional' });
    const posted = await api.request('POST', `/v1/email/unsubscribe?token=${oldToggle}`, {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(load(posted.text)('h1').text()).toBe('Account & order emails are always sent');
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
      // the signature's first character changed (its last one's low bits are padding a decoder may ignore)
      const at = valid.lastIndexOf('.') + 1;
      search = `?token=${valid.slice(0, at)}${valid[at] === 'A' ? 'B' : 'A'}${valid.slice(at + 1)}`;
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
    // a scanner fetching the header's URL first changes nothing
    expect((await fetch(`${api.url}${pathOf(target)}`, { method: 'HEAD' })).status).toBe(200);
    expect((await api.request('GET', pathOf(target))).status).toBe(200);
    expect(await checkSendGate(api.deps.db, to, 'journey')).toEqual({ allowed: true });
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
    expect(await checkSendGate(api.deps.db, to, 'journey')).toEqual({ allowed: true });
    expect((await confirmLink(pathOf(href))).status).toBe(200);
    expect(await checkSendGate(api.deps.db, to, 'journey')).toMatchObject({ allowed: false });
  });
});
