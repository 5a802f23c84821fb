import { randomUUID } from 'node:crypto';
import { load } from 'cheerio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailsTo, uniqueAddress, waitFor, type EmulatorEmail } from '../../../../test/email-emulator';
import { eventually } from '../../../../test/eventually';
import { seedList } from '../../../../test/seed-list';
import { issueApiKey, startTestApi, type TestApi } from '../../../../test/test-api';
import { sendOfEmail } from '../../../../test/send-of-email';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;
const BAD_LOCALE = 'must be a BCP 47 language tag such as fr or fr-CA, got "fr_CA"';

/**
 * docs/email.md, "Languages": a contact's `locale` picks the language of its emails (journeys,
 * transactional sends) and of its unsubscribe and preference pages, fr-CA → fr → the template's
 * default; the studio's views of a send show the locale used.
 */
describe("a contact's locale", () => {
  let api: TestApi;
  let ingestKey: string;
  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY });
    ingestKey = await issueApiKey(api, LEGACY, 'producer-locale', ['ingest']);
  });
  afterAll(() => api?.close());

  const pathOf = (url: string) => url.replace(api.config.apiPublicUrl, '');
  const signUp = (userId: string, email: string, locale: string) =>
    api.request('POST', '/v1/events', {
      token: ingestKey,
      body: { name: 'user.signed_up', userId, email, eventProperties: { firstName: 'Grace' }, contactProperties: { locale } },
    });
  const welcomeTo = async (to: string): Promise<EmulatorEmail> => {
    const [email] = await waitFor(
      async () => {
        const found = await emailsTo(to);
        return found.length > 0 ? found : undefined;
      },
      { timeoutMs: 120_000, what: 'the welcome email in the SES emulator' },
    );
    return email!;
  };

  it('is refused (400 naming the field) unless it is a BCP 47 tag, on events, identify and the admin contacts API', async () => {
    const userId = `loc-${randomUUID()}`;
    const event = await api.request('POST', '/v1/events', { token: ingestKey, body: { name: 'page.viewed', userId, contactProperties: { locale: 'fr_CA' } } });
    expect(event.status).toBe(400);
    expect(event.body.error).toBe(`Invalid request: contactProperties.locale ${BAD_LOCALE}`);
    const identify = await api.request('POST', '/v1/contacts', { token: ingestKey, body: { userId, properties: { locale: 'fr_CA' } } });
    expect(identify.status).toBe(400);
    expect(identify.body.error).toBe(`Invalid request: properties.locale ${BAD_LOCALE}`);
    const created = await api.request('POST', '/v1/admin/contacts', { token: LEGACY, body: { externalId: userId, properties: { locale: 'fr-CA' } } });
    expect(created.status).toBe(201);
    const edited = await api.request('PATCH', `/v1/admin/contacts/${userId}`, { token: LEGACY, body: { properties: { locale: 'fr_CA' } } });
    expect(edited.status).toBe(400);
    expect(edited.body.error).toBe(`Invalid request: properties.locale ${BAD_LOCALE}`);
  });

  it('fr-CA gets the French welcome email and French unsubscribe and preference pages; the send, timeline and explain show fr', async () => {
    const userId = `loc-fr-${randomUUID()}`;
    const to = uniqueAddress('locale-fr');
    expect((await signUp(userId, to, 'fr-CA')).status).toBe(202);
    const email = await welcomeTo(to);
    expect(email.subject).toBe('Bienvenue sur Waymark, Grace !');
    expect(email.body.text).toContain('Bonjour Grace,');
    expect(email.body.text).toContain('Accéder à votre tableau de bord');
    expect(email.body.html).toContain('lang="fr"');

    const send = await sendOfEmail(api.deps.db, email);
    expect(send.locale).toBe('fr');
    const detail = await api.request('GET', `/v1/admin/emails/${send.id}`, { token: LEGACY });
    expect(detail.body.email.locale).toBe('fr');
    const timeline = await api.request('GET', `/v1/admin/contacts/${userId}/timeline?type=email`, { token: LEGACY });
    expect(timeline.body.timeline[0].data).toMatchObject({ templateKey: 'welcome', locale: 'fr' });
    const explain = await api.request('GET', `/v1/admin/contacts/${userId}/explain?journeyId=welcome-series`, { token: LEGACY });
    const sent = explain.body.explanation.enrollments[0].steps.find((step: { action: string }) => step.action === 'email_sent');
    expect(sent).toMatchObject({ templateKey: 'welcome', locale: 'fr' });
    const rendered = await api.request('GET', `/v1/admin/emails/${send.id}/rendered`, { token: LEGACY });
    expect(rendered.body.subject).toBe('Bienvenue sur Waymark, Grace !');

    const $ = load(email.body.html!);
    const question = await api.request('GET', pathOf($('a:contains("Se désabonner")').attr('href')!));
    expect(question.status).toBe(200);
    const page = load(question.text);
    expect(page('html').attr('lang')).toBe('fr');
    expect(page('h1').text()).toBe('Se désabonner : e-mails d’accompagnement ?');
    expect(page('button').text()).toBe('Se désabonner');
    const preferences = await api.request('GET', pathOf($('a:contains("Préférences e-mail")').attr('href')!));
    const center = load(preferences.text);
    expect(center('h1').text()).toBe('Préférences e-mail');
    expect(center('#cat-journey').text()).toBe('E-mails d’accompagnement');
    expect(center('button').first().text()).toBe('Se désabonner');
  }, 180_000);

  it('de falls back to the template default (English), and so do its pages', async () => {
    const userId = `loc-de-${randomUUID()}`;
    const to = uniqueAddress('locale-de');
    expect((await signUp(userId, to, 'de')).status).toBe(202);
    const email = await welcomeTo(to);
    expect(email.subject).toBe('Welcome to Waymark, Grace!');
    const send = await sendOfEmail(api.deps.db, email);
    expect(send.locale).toBe('en');
    const question = await api.request('GET', pathOf(load(email.body.html!)('a:contains("Unsubscribe")').attr('href')!));
    expect(load(question.text)('h1').text()).toBe('Unsubscribe from journey & lifecycle emails?');
  }, 180_000);

  it("POST /v1/emails speaks the contact's locale, the default to an address without a contact, and a given locale first", async () => {
    const send = async (to: string, extra: Record<string, unknown> = {}) => {
      const response = await api.request('POST', '/v1/emails', {
        token: ingestKey,
        body: { templateKey: 'welcome', to, data: { firstName: 'Ada' }, ...extra },
      });
      expect(response.status).toBe(202);
      const row = await api.deps.db
        .selectFrom('emailSends')
        .select(['locale', 'subject'])
        .where('id', '=', response.body.emailSendId)
        .executeTakeFirstOrThrow();
      return row;
    };
    const known = uniqueAddress('locale-api');
    await api.request('POST', '/v1/contacts', { token: ingestKey, body: { userId: `loc-api-${randomUUID()}`, email: known, properties: { locale: 'fr-FR' } } });
    expect(await send(known)).toEqual({ locale: 'fr', subject: 'Bienvenue sur Waymark, Ada !' });
    expect(await send(uniqueAddress('locale-none'))).toEqual({ locale: 'en', subject: 'Welcome to Waymark, Ada!' });
    expect(await send(known, { locale: 'en-GB' })).toEqual({ locale: 'en', subject: 'Welcome to Waymark, Ada!' });
    const bad = await api.request('POST', '/v1/emails', { token: ingestKey, body: { templateKey: 'welcome', to: known, locale: 'fr_CA' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('locale');
  });

  it("a broadcast sends each recipient the template in its contact's locale", async () => {
    const french = uniqueAddress('locale-bc-fr');
    const german = uniqueAddress('locale-bc-de');
    const { listKey } = await seedList(api.deps.db, [
      { email: french, properties: { locale: 'fr-CA', firstName: 'Ada' } },
      { email: german, properties: { locale: 'de', firstName: 'Max' } },
    ]);
    const created = await api.request('POST', '/v1/admin/broadcasts', {
      token: LEGACY,
      body: { name: `Languages ${randomUUID().slice(0, 8)}`, templateKey: 'welcome', category: 'newsletter', audience: { listKey }, data: {} },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.broadcast.id as string;
    expect((await api.request('POST', `/v1/admin/broadcasts/${id}/send`, { token: LEGACY })).status).toBe(202);
    const sends = await eventually(
      () => api.deps.db.selectFrom('emailSends').select(['toEmail', 'locale', 'subject', 'status']).where('broadcastId', '=', id).orderBy('locale').execute(),
      (rows) => rows.length === 2 && rows.every((row) => row.status === 'sent'),
      { timeoutMs: 90_000, what: 'both broadcast sends' },
    );
    expect(sends.map(({ toEmail, locale, subject }) => ({ toEmail, locale, subject }))).toEqual([
      { toEmail: german, locale: 'en', subject: 'Welcome to Waymark, Max!' },
      { toEmail: french, locale: 'fr', subject: 'Bienvenue sur Waymark, Ada !' },
    ]);
  });

  it('the template list names each template’s languages, and a preview renders the one asked for', async () => {
    const list = await api.request('GET', '/v1/admin/templates', { token: LEGACY });
    const welcome = list.body.templates.find((template: { key: string }) => template.key === 'welcome');
    expect(welcome.locales).toEqual(['en', 'fr']);
    const preview = await api.request('POST', '/v1/admin/templates/welcome/render', { token: LEGACY, body: { locale: 'fr-CA' } });
    expect(preview.body).toMatchObject({ locale: 'fr', subject: 'Bienvenue sur Waymark, Ada !' });
    const bad = await api.request('POST', '/v1/admin/templates/welcome/render', { token: LEGACY, body: { locale: 'x y' } });
    expect(bad.status).toBe(400);
  });
});
