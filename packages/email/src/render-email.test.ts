import { createElement, use } from 'react';
import { toPlainText } from '@react-email/render';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { EmailTemplate } from './email-template';
import { renderEmail } from './render-email';

const links = { unsubscribeUrl: 'https://example.test/u', preferencesUrl: 'https://example.test/p' };

const template: EmailTemplate = {
  key: 'plain-text-check',
  schema: z.object({ name: z.string() }),
  subject: (data) => `Hi ${String(data.name)}`,
  component: (props) =>
    createElement(
      'html',
      null,
      createElement(
        'body',
        null,
        createElement('h1', null, `Hello ${String(props.name)}`),
        createElement('img', { src: 'https://example.test/logo.png', alt: 'logo' }),
        createElement('p', null, 'Read ', createElement('a', { href: 'https://example.test/docs' }, 'the docs'), ' today.'),
        createElement(
          'table',
          null,
          createElement('tbody', null, createElement('tr', null, createElement('td', null, 'one'), createElement('td', null, 'two'))),
        ),
        createElement('p', { 'data-skip-in-text': 'true' }, 'html only'),
        createElement('a', { href: props.links.unsubscribeUrl }, props.links.unsubscribeUrl),
      ),
    ),
  sampleData: { name: 'Ada' },
};

describe('renderEmail', () => {
  it("gives the plain text React Email's toPlainText gives for the same HTML (the converter is compiled once)", async () => {
    const first = await renderEmail(template, { name: 'Ada' }, links);
    const second = await renderEmail(template, { name: 'Grace' }, links);
    for (const rendered of [first, second]) expect(rendered.text).toBe(toPlainText(rendered.html));
    expect(second.text).toContain('HELLO GRACE');
    expect(second.text).not.toContain('html only');
  });
});

describe('the HTML of every template', () => {
  it('drops the preload hint React adds for an image, keeps the image, and starts with the XHTML doctype', async () => {
    const rendered = await renderEmail(template, { name: 'Ada' }, links);
    expect(rendered.html.startsWith('<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN"')).toBe(true);
    expect(rendered.html).not.toContain('rel="preload"');
    expect(rendered.html).toContain('<img src="https://example.test/logo.png" alt="logo"/>');
  });

  it('renders a template that suspends (awaits data) with the streaming render', async () => {
    const data = Promise.resolve('from a promise');
    const suspending: EmailTemplate = {
      ...template,
      key: 'suspends',
      component: () => createElement('html', null, createElement('body', null, createElement('p', null, use(data)))),
    };
    const rendered = await renderEmail(suspending, { name: 'Ada' }, links);
    expect(rendered.html).toContain('<p>from a promise</p>');
  });
});
