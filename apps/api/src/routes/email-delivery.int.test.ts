import { randomUUID } from 'node:crypto';
import { load } from 'cheerio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailsTo, header, uniqueAddress, waitFor } from '../../../../test/email-emulator';
import { sesEventMessage, signedSnsMessage, TEST_SNS_CERT_PEM } from '../../../../test/sns-signer';
import { startTestApi, type TestApi } from '../../../../test/test-api';
import { sendOfEmail } from '../../../../test/send-of-email';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;
const SECRET = `whsec-${randomUUID()}`;

/**
 * End to end over HTTP with the real stack: an event starts a journey (Temporal worker), the
 * journey's email goes out through the SES emulator and is read back from it; its tracked link,
 * pixel and unsubscribe link work; SES bounces suppress the address.
 */
describe('journey email, end to end', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY, EMAIL_PROVIDER_WEBHOOK_SECRET: SECRET, EMAIL_PROVIDER_SNS_CERTIFICATE: TEST_SNS_CERT_PEM });
  });
  afterAll(() => api?.close());

  const pathOf = (url: string) => url.replace(api.config.apiPublicUrl, '');
  const signUp = (userId: string, email: string) =>
    api.request('POST', '/v1/events', { token: LEGACY, body: { name: 'user.signed_up', userId, email, eventProperties: { firstName: 'Grace' } } });

  it('a journey sends its email through SES; the link, pixel and unsubscribe link in it work', async () => {
    const userId = `e2e-${randomUUID()}`;
    const to = uniqueAddress('e2e');
    expect((await signUp(userId, to)).status).toBe(202);

    const [email] = await waitFor(
      async () => {
        const found = await emailsTo(to);
        return found.length > 0 ? found : undefined;
      },
      { timeoutMs: 45_000, what: 'the welcome email in the SES emulator' },
    );
    expect(email!.subject).toBe('Welcome to Waymark, Grace!');
    expect(email!.from).toBe('Waymark Tests <tests@waymark.local>');
    expect(header(email!, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
    expect(email!.body.text).toContain('Hi Grace,');

    const send = await sendOfEmail(api.deps.db, email!);
    expect(send).toMatchObject({ templateKey: 'welcome', status: 'sent', userId, toEmail: to });
    const state = await api.deps.db.selectFrom('journeyStates').selectAll().where('id', '=', send.journeyStateId!).executeTakeFirstOrThrow();
    expect(state).toMatchObject({ journeyId: 'welcome-series', userId });
    const logs = await api.deps.db.selectFrom('journeyLogs').select(['action', 'detail']).where('journeyStateId', '=', state.id).execute();
    expect(logs.filter((log) => log.action === 'email_sent')).toEqual([{ action: 'email_sent', detail: { templateKey: 'welcome', emailSendId: send.id } }]);

    const $ = load(email!.body.html!);
    const button = $('a:contains("Go to your dashboard")').attr('href')!;
    expect(button).toMatch(/\/v1\/t\/c\/[0-9a-f-]{36}$/);
    const click = await api.request('GET', pathOf(button), { headers: { 'user-agent': 'e2e' } });
    expect(click.status).toBe(302);
    expect(click.headers.get('location')).toBe('https://app.example.com/');

    const pixel = $(`img[src$="/v1/t/o/${send.id}"]`);
    expect(pixel.attr()).toMatchObject({ width: '1', height: '1', alt: '', style: 'display:none' });
    expect((await fetch(`${api.url}${pathOf(pixel.attr('src')!)}`)).headers.get('content-type')).toBe('image/gif');
    const tracked = await api.deps.db.selectFrom('emailSends').selectAll().where('id', '=', send.id).executeTakeFirstOrThrow();
    expect(tracked.clickedAt).toBeInstanceOf(Date);
    expect(tracked.openedAt).toBeInstanceOf(Date);
    const events = await waitFor(
      async () => {
        const rows = await api.deps.db.selectFrom('events').select('event').where('userId', '=', userId).where('event', 'like', 'email.%').execute();
        return rows.length >= 2 ? rows : undefined;
      },
      { what: 'tracking events' },
    );
    expect(events.map((row) => row.event).sort()).toEqual(['email.link_clicked', 'email.opened']);

    // the link's page only asks (a link scanner's visit changes nothing); its button applies it
    const unsubscribe = await api.request('GET', pathOf($('a:contains("Unsubscribe")').attr('href')!));
    expect(unsubscribe.status).toBe(200);
    const page = load(unsubscribe.text);
    const form = page('form[method="post"]').first();
    const fields = new URLSearchParams(
      form
        .find('input')
        .map((_, input) => [[page(input).attr('name')!, page(input).attr('value') ?? '']])
        .get() as [string, string][],
    );
    const pressed = await api.request('POST', pathOf(form.attr('action')!), {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: fields.toString(),
    });
    expect(pressed.status).toBe(200);
    const preference = await api.deps.db.selectFrom('emailPreferences').selectAll().where('email', '=', to).executeTakeFirstOrThrow();
    expect(preference).toMatchObject({ userId, categories: { journey: false } });

    const detail = await api.request('GET', `/v1/admin/emails/${send.id}`, { token: LEGACY });
    expect(detail.body.journeyContext).toMatchObject({ journeyId: 'welcome-series', userId });
    expect(detail.body.trackedLinks[0].clickCount).toBe(1);
  });

  it('three hard bounces through the SES webhook suppress the address; the next journey entry is not sent', async () => {
    const to = uniqueAddress('e2e-bounce');
    const basic = `Basic ${Buffer.from(`sns:${SECRET}`).toString('base64')}`;
    for (let bounce = 0; bounce < 3; bounce += 1) {
      const response = await api.request('POST', '/v1/webhooks/email-provider', {
        body: JSON.stringify(signedSnsMessage({ Message: sesEventMessage('Bounce', `ses-${randomUUID()}`, to) })),
        headers: { 'content-type': 'text/plain; charset=UTF-8', authorization: basic },
      });
      expect(response.status).toBe(200);
    }
    const preference = await api.deps.db.selectFrom('emailPreferences').selectAll().where('email', '=', to).executeTakeFirstOrThrow();
    expect(preference).toMatchObject({ bounceCount: 3, suppressed: true });

    expect((await signUp(`e2e-${randomUUID()}`, to)).status).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    expect(await emailsTo(to)).toHaveLength(0);
    expect(await api.deps.db.selectFrom('emailSends').select('id').where('toEmail', '=', to).execute()).toHaveLength(0);
  });
});
