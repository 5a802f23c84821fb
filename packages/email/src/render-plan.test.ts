import { createElement, type ReactNode } from 'react';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { EmailLinks, EmailTemplate } from './email-template';
import { parseForTracking } from './link-tracking';
import { renderEmail } from './render-email';
import { renderForSend } from './render-plan';

const text = () => z.string().optional().meta({ text: true });

function linksFor(person: string): { links: EmailLinks; tokens: string[] } {
  const tokens = [`eyJ.unsub-${person}_x`, `eyJ.prefs-${person}_y`];
  return {
    links: {
      unsubscribeUrl: `https://mail.example.com/v1/email/unsubscribe?token=${tokens[0]}`,
      preferencesUrl: `https://mail.example.com/v1/email/preferences?token=${tokens[1]}`,
    },
    tokens,
  };
}

function templateOf(key: string, body: (props: Record<string, unknown>) => ReactNode, cityInLink = false): EmailTemplate {
  return {
    key,
    schema: z.object({ name: text(), city: text(), product: z.string().default('Atlas') }),
    subject: (data) => `Hi ${String(data.name ?? 'there')}`,
    component: (props) => {
      const links = props.links;
      return createElement(
        'html',
        null,
        createElement(
          'body',
          null,
          // html-to-text writes a heading in upper case: a value there makes no plan
          createElement('h1', null, 'News'),
          createElement('p', { title: String(props.name ?? '') }, body(props)),
          createElement('p', null, 'Read ', createElement('a', { href: 'https://example.test/docs?a=1&b=2' }, 'the docs'), ` about ${String(props.product)}.`),
          cityInLink
            ? createElement('a', { href: `https://example.test/city/${String(props.city ?? 'none')}` }, 'your city')
            : createElement('p', { 'data-city': String(props.city ?? '') }, `From ${String(props.city ?? 'nowhere')}`),
          createElement(
            'p',
            null,
            createElement('a', { href: links.unsubscribeUrl }, 'Unsubscribe'),
            ' · ',
            createElement('a', { href: links.preferencesUrl }, 'Preferences'),
          ),
        ),
      );
    },
    sampleData: { name: 'Ada' },
  };
}

/** What a send got before render plans: renderEmail, then parseForTracking of its HTML. */
async function fullRender(template: EmailTemplate, data: Record<string, unknown>, person: string) {
  const { links } = linksFor(person);
  const rendered = await renderEmail(template, data, links);
  const document = parseForTracking(rendered.html);
  const options = { publicUrl: 'https://t.example', emailSendId: `send-${person}`, linkIds: new Map(document.urls.map((url, index) => [url, `id-${index}`])) };
  return { subject: rendered.subject, text: rendered.text, urls: document.urls, html: document.apply(options), options };
}

async function plannedRender(template: EmailTemplate, data: Record<string, unknown>, person: string) {
  const { links, tokens } = linksFor(person);
  const rendered = await renderForSend(template, data, links, { locale: undefined, tokens, secrets: [] });
  const expected = await fullRender(template, data, person);
  return {
    actual: { subject: rendered.subject, text: rendered.text, urls: rendered.document.urls, html: rendered.document.apply(expected.options) },
    expected,
  };
}

const PEOPLE: Record<string, unknown>[] = [
  { name: 'Ada', city: 'Paris' },
  { name: 'Grace Hopper', city: 'New York' },
  { name: 'José', city: 'São Paulo' },
  { name: 'Zoë-Anne St. Clair', city: 'Zürich' },
  { name: 'X', city: 'Y' },
  { name: 'Ada', city: 'Paris' },
  { name: 'An unusually long name that goes on and on for quite a while indeed', city: 'Llanfairpwllgwyngyll' },
  // values a plan cannot hold: rendered in full, escaped by React as always
  { name: '<b>Eve</b>', city: 'Paris' },
  { name: "O'Brien & Sons", city: 'Paris' },
  { name: '  spaced   out  ', city: 'Paris' },
  { name: 'Ada' },
  {},
  // a value that looks like a plan's stand-in (render-plan.ts), as a text prop and as other data
  { name: '\uE000a\uE001', city: 'Paris' },
  { name: 'Ada', city: 'Paris', product: '\uE000b\uE001' },
  { name: 'Ada', city: 'Paris', product: '\uE000b\uE001' },
  { name: 'Ada', city: 'Paris', product: 'Atlas Pro' },
];

describe('renderForSend (render plans)', () => {
  it('gives what renderEmail and parseForTracking give, send after send, whatever the values (text props, link tokens)', async () => {
    const template = templateOf('plain', (props) => `Hello ${String(props.name ?? 'there')}`);
    for (let round = 0; round < 3; round++) {
      for (const [index, person] of PEOPLE.entries()) {
        const { actual, expected } = await plannedRender(template, person, `p${round}-${index}`);
        expect(actual, JSON.stringify(person)).toEqual({ subject: expected.subject, text: expected.text, urls: expected.urls, html: expected.html });
      }
    }
  });

  it('gives the same for a template that measures a text value, changes its case or cuts it (no plan), or tracks a link holding one', async () => {
    const templates = [
      templateOf('by-length', (props) => (String(props.name ?? '').length > 20 ? `Dear ${String(props.name)}` : `Hi ${String(props.name)}`)),
      templateOf('upper', (props) => `HELLO ${String(props.name ?? '').toUpperCase()}`),
      templateOf('heading', (props) => createElement('h2', null, String(props.name))),
      templateOf('initial', (props) => `Hello ${String(props.name ?? '?').slice(0, 1)}.`),
      // a tracked link that holds a value: the plan keeps the render, each send parses for tracking
      templateOf('tracked-by-value', (props) => `Hello ${String(props.name)}`, true),
    ];
    for (const template of templates) {
      for (let round = 0; round < 3; round++) {
        for (const [index, person] of PEOPLE.entries()) {
          const { actual, expected } = await plannedRender(template, person, `${template.key}-${round}-${index}`);
          expect(actual, `${template.key} ${JSON.stringify(person)}`).toEqual({
            subject: expected.subject,
            text: expected.text,
            urls: expected.urls,
            html: expected.html,
          });
        }
      }
    }
  });

  it('renders React for the first two sends of a template, locale and other data, then fills the plan (a broadcast: docs/email.md, "Render plans")', async () => {
    let renders = 0;
    const plain = templateOf('counted', (props) => `Hello ${String(props.name ?? 'there')}`);
    const counted: EmailTemplate = { ...plain, component: (props) => (renders++, plain.component(props)) };
    const names = ['Ada', 'Grace', 'Linus', 'Margaret', 'Ken', 'Barbara'];
    for (const [index, name] of names.entries()) {
      const { actual, expected } = await plannedRender(counted, { name, city: 'Paris' }, `counted-${index}`);
      expect(actual).toEqual({ subject: expected.subject, text: expected.text, urls: expected.urls, html: expected.html });
    }
    // plannedRender renders in full once per send to compare; the plan: the first send, then the second and its two stand-in renders
    expect(renders - names.length).toBe(4);
    // other data (a product name that is not a text prop): a plan of its own
    renders = 0;
    await plannedRender(counted, { name: 'Ada', city: 'Paris', product: 'Atlas Pro' }, 'other-1');
    expect(renders - 1).toBe(1);
  });
});
