import { createElement } from 'react';
import { render, toPlainText } from '@react-email/render';
import { describe, expect, it } from 'vitest';
import { emailTemplates, listedKeys } from './registry';
import { createTemplateRegistry } from '@waymark/email/email-template';
import { renderEmail, templateLanguage, TemplateDataError } from '@waymark/email/render-email';
import { renderForSend } from '@waymark/email/render-plan';
import { parseForTracking } from '@waymark/email/link-tracking';
import { textProps } from '@waymark/email/secret-props';
import { catalogProblems } from '@waymark/email/message-catalog';
import { layoutMessages } from './components/layout-messages';
import { assertTemplateCategories, definePreferenceCategories } from '@waymark/email/preference-categories';
import { categories } from '../categories';

/** the keys passed to ctx.sendEmail in journeys/*.ts */
const JOURNEY_TEMPLATE_KEYS = [
  'welcome',
  'welcome-tips',
  'welcome-getting-started',
  'trial-welcome',
  'trial-pricing-followup',
  'trial-last-chance',
  'reengage-we-miss-you',
  'reengage-welcome-back',
  'reengage-last-call',
  'trial-ending',
  'payment-failed',
  'payment-final-notice',
];

const links = {
  unsubscribeUrl: 'https://mail.example.com/v1/email/unsubscribe?token=UNSUB',
  preferencesUrl: 'https://mail.example.com/v1/email/preferences?token=PREFS',
};

describe('template registry (journeys/templates)', () => {
  it("renders each template as React Email's render does (render-email.ts), without React's hydration markers (and with the same text)", async () => {
    const hydrationMarkers = /<!--(\$|\/\$|html|head|body| )-->/g;
    for (const each of emailTemplates) {
      const data = each.schema.parse(each.sampleData ?? {});
      const ours = await renderEmail(each, data, links);
      const reactEmail = await render(createElement(each.component, { ...data, links, ...templateLanguage(each, undefined) }));
      expect(ours.html, each.key).toBe(reactEmail.replace(hydrationMarkers, ''));
      expect(ours.text, each.key).toBe(toPlainText(reactEmail));
    }
  });

  it('has every message of its default locale in each locale its catalog declares, as ICU MessageFormat (docs/email.md, "Languages")', () => {
    const problems = emailTemplates.flatMap((template) => (template.messages === undefined ? [] : catalogProblems(template.key, template.messages)));
    expect([...problems, ...catalogProblems('email layout', layoutMessages)]).toEqual([]);
    // the welcome email ships French: a catalog that stops declaring it fails here, not in a recipient's inbox
    expect(Object.keys(emailTemplates.find((template) => template.key === 'welcome')?.messages?.messages ?? {})).toEqual(['en', 'fr']);
  });

  it('speaks French to fr-CA (fr-CA → fr), and its default to a locale it does not have (de)', async () => {
    const welcome = createTemplateRegistry(emailTemplates).find('welcome')!;
    const french = await renderEmail(welcome, { firstName: 'Ada' }, links, 'fr-CA');
    expect(french).toMatchObject({ locale: 'fr', subject: 'Bienvenue sur Waymark, Ada !' });
    expect(french.html).toContain('lang="fr"');
    expect(french.text).toContain('Accéder à votre tableau de bord');
    expect(french.text).toContain('Se désabonner');
    const german = await renderEmail(welcome, {}, links, 'de');
    expect(german).toMatchObject({ locale: 'en', subject: 'Welcome to Waymark!' });
    expect(german.text).toContain('Hi there,');
    expect(german.text).toContain('Unsubscribe');
  });

  it('lists each template under its own key (the key ctx.sendEmail is typed with)', () => {
    expect(listedKeys).toEqual(emailTemplates.map((template) => template.key));
  });

  it('names only categories journeys/categories.ts declares (the runtime refuses to start otherwise)', () => {
    const declared = definePreferenceCategories(categories);
    expect(() => assertTemplateCategories(emailTemplates, declared)).not.toThrow();
    const withoutTransactional = definePreferenceCategories(categories.filter((category) => category.key !== 'transactional'));
    expect(() => assertTemplateCategories(emailTemplates, withoutTransactional)).toThrow(/auth-password-reset → transactional/);
  });

  it('has unique keys and refuses duplicates', () => {
    const registry = createTemplateRegistry(emailTemplates);
    expect(registry.keys()).toHaveLength(emailTemplates.length);
    expect(() => createTemplateRegistry([emailTemplates[0]!, emailTemplates[0]!])).toThrow(/Duplicate/);
  });

  it.each(emailTemplates.map((template) => [template.key, template] as const))(
    '%s renders its sample data with subject, HTML, text and the unsubscribe footer',
    async (_key, template) => {
      const rendered = await renderEmail(template, template.sampleData, links);
      expect(rendered.subject.length).toBeGreaterThan(0);
      expect(rendered.html).toMatch(/^<!DOCTYPE html/i);
      expect(rendered.html).toContain(links.unsubscribeUrl);
      expect(rendered.html).toContain(links.preferencesUrl);
      expect(rendered.text).toContain('Unsubscribe');
      expect(rendered.text).not.toContain('<');
      expect(rendered.category).toBe(template.category ?? 'journey');
    },
  );

  it('has a template for every key the example journeys send (journeys/*.ts)', () => {
    const registry = createTemplateRegistry(emailTemplates);
    for (const key of JOURNEY_TEMPLATE_KEYS) expect(registry.find(key), key).toBeDefined();
  });

  it('accepts null for unknown trigger properties (journeys pass them through)', async () => {
    const template = createTemplateRegistry(emailTemplates).find('welcome')!;
    const rendered = await renderEmail(template, { firstName: null }, links);
    expect(rendered.subject).toBe('Welcome to Waymark!');
  });

  it('uses data in the subject and escapes it in the HTML', async () => {
    const template = createTemplateRegistry(emailTemplates).find('welcome')!;
    const rendered = await renderEmail(template, { firstName: '<b>Eve</b>' }, links);
    expect(rendered.subject).toBe('Welcome to Waymark, <b>Eve</b>!');
    expect(rendered.html).toContain('&lt;b&gt;Eve&lt;/b&gt;');
    expect(rendered.html).not.toContain('<b>Eve</b>');
  });

  it('rejects data that fails the template schema with a TemplateDataError naming the field', async () => {
    const template = createTemplateRegistry(emailTemplates).find('order-receipt')!;
    await expect(renderEmail(template, { orderId: 'A-1', items: [] }, links)).rejects.toThrow(TemplateDataError);
    await expect(renderEmail(template, { items: [{ name: 'x', quantity: 1, price: 1 }] }, links)).rejects.toThrow(/orderId/);
  });

  // every template × locale × value rendered twice: ~2 s alone, past the default 5 s when `npm run check`
  // runs it beside the unit project and a typecheck on two cores
  it('sends from a render plan exactly what a full render sends, for every template, locale and text value (render-plan.ts)', { timeout: 30_000 }, async () => {
    const values = ['Ada', 'Grace Hopper', 'José', 'Zoë-Anne St. Clair', 'X', '<b>Eve</b>', "O'Brien", undefined];
    let planned = 0;
    for (const template of emailTemplates) {
      // the plans are kept per template object: one counted copy for all its sends
      let components = 0;
      const counted = { ...template, component: (props: Parameters<typeof template.component>[0]) => (components++, template.component(props)) };
      for (const locale of [undefined, 'fr-CA']) {
        for (const [index, value] of [...values, ...values].entries()) {
          const data = { ...(template.sampleData as Record<string, unknown>), ...Object.fromEntries(textProps(template).map((prop) => [prop, value])) };
          const tokens = [`eyJhbGciOi.unsub${index}.sig_-`, `eyJhbGciOi.prefs${index}.sig-_`];
          const perSend = {
            unsubscribeUrl: `https://mail.example.com/v1/email/unsubscribe?token=${tokens[0]}`,
            preferencesUrl: `https://mail.example.com/v1/email/preferences?token=${tokens[1]}`,
          };
          const before = components;
          const ours = await renderForSend(counted, data, perSend, { locale, tokens, secrets: [] });
          if (components === before) planned += 1;
          const full = await renderEmail(template, data, perSend, locale);
          const document = parseForTracking(full.html);
          const options = {
            publicUrl: 'https://t.example',
            emailSendId: `send-${index}`,
            linkIds: new Map(document.urls.map((url, at) => [url, `link-${at}`])),
          };
          expect(
            { subject: ours.subject, text: ours.text, urls: ours.document.urls, html: ours.document.apply(options) },
            `${template.key} ${locale} ${value}`,
          ).toEqual({
            subject: full.subject,
            text: full.text,
            urls: document.urls,
            html: document.apply(options),
          });
        }
      }
    }
    // the welcome series and the broadcasts' templates fill plans after their first sends
    expect(planned).toBeGreaterThan(emailTemplates.length * 2);
  });
});
