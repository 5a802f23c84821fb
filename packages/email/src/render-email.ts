import { createElement, type ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { plainTextSelectors, render } from '@react-email/render';
import { compile } from 'html-to-text';
import { Parser } from 'htmlparser2';
import { applyHtmlEdits, type HtmlEdit } from './html-edits';
import { DEFAULT_EMAIL_CATEGORY, type EmailLinks, type EmailTemplate } from './email-template';
import { resolveLocale, translator, type Translate } from './message-catalog';
import { REDACTED, redactedProps } from './secret-props';

export interface RenderedEmail {
  subject: string;
  category: string;
  html: string;
  text: string;
  /** the locale of the template's catalog it was rendered in (resolveLocale) */
  locale: string;
}

/**
 * React Email's `toPlainText(html)` is html-to-text's `convert(html, options)` with these options,
 * and `convert` compiles its options into a converter (selector decision trees) on every call:
 * about 8% of the worker main thread's CPU per send went there (bench/HISTORY.md). Compiled once here, the text is
 * the same (types: html-to-text.d.ts).
 */
const toPlainText = compile({ wordwrap: false, selectors: plainTextSelectors });

export class TemplateDataError extends Error {
  constructor(templateKey: string, detail: string) {
    super(`Invalid data for template "${templateKey}": ${detail}`);
    this.name = 'TemplateDataError';
  }
}

/** React Email's `render` puts this doctype first (a static render has none of its own). */
const XHTML_DOCTYPE = '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">';

/**
 * The email's HTML. React Email's `render` streams the element (renderToReadableStream into a
 * WritableStream, after a dynamic import of react-dom/server on every call): about five times the
 * CPU of one synchronous `renderToStaticMarkup`, and the largest cost of a send (bench/HISTORY.md).
 * The synchronous render gives the same HTML without React's hydration markers (`<!--$-->`,
 * `<!-- -->`; an email is never hydrated), so mail clients see the same email (journeys/templates/registry.test.ts
 * compares every template). A template that suspends (awaits data) cannot render synchronously:
 * it throws there, and React Email's streaming render, which waits for it, renders it instead.
 */
async function renderHtml(element: ReactElement): Promise<string> {
  let markup: string;
  try {
    markup = renderToStaticMarkup(element);
  } catch {
    // a suspending template, or a template bug: the streaming render waits for the one and
    // throws the other's error again, to the caller
    return render(element);
  }
  return XHTML_DOCTYPE + withoutImagePreloads(markup);
}

/**
 * React adds `<link rel="preload" as="image">` to the head for every image it renders (a hint
 * for browsers); React Email removes them, as an email has no use for them.
 */
function withoutImagePreloads(html: string): string {
  // most emails carry no image: no parse
  if (!html.includes('rel="preload"')) return html;
  const cuts: HtmlEdit[] = [];
  const parser: Parser = new Parser({
    onopentag(name, attributes) {
      if (name === 'link' && attributes.rel?.toLowerCase() === 'preload' && attributes.as?.toLowerCase() === 'image')
        cuts.push({ start: parser.startIndex, end: parser.endIndex + 1, text: '' });
    },
  });
  parser.end(html);
  return applyHtmlEdits(html, cuts);
}

/** The locale a template speaks for `requested` (the recipient's), and its `t`. */
export function templateLanguage(template: EmailTemplate, requested: string | null | undefined): { locale: string; t: Translate } {
  const locale = resolveLocale(template.messages, requested);
  if (template.messages !== undefined) return { locale, t: translator(template.messages, locale) };
  return {
    locale,
    t: (key) => {
      throw new Error(`Template "${template.key}" has no message catalog (message "${key}")`);
    },
  };
}

/**
 * The template's data, validated against its schema (TemplateDataError otherwise). A secret prop
 * in `data` that holds the placeholder (kept data: secret-props.ts) is checked as the template's
 * sample value and comes back as the placeholder, so a past send's preview shows where the secret
 * was without failing the prop's schema (a URL, say).
 */
export function validTemplateData(template: EmailTemplate, data: unknown): Record<string, unknown> {
  const given = (data ?? {}) as Record<string, unknown>;
  const placeholders = typeof given === 'object' ? redactedProps(template, given) : [];
  const sample = template.sampleData as Record<string, unknown>;
  const checked = placeholders.length === 0 ? given : { ...given, ...Object.fromEntries(placeholders.map((prop) => [prop, sample[prop]])) };
  const parsed = template.schema.safeParse(checked);
  if (!parsed.success) {
    const detail = parsed.error.issues
      .slice(0, 5)
      .map((issue) => `${issue.path.join('.') || '(data)'}: ${issue.message}`)
      .join('; ');
    throw new TemplateDataError(template.key, detail);
  }
  if (placeholders.length > 0) Object.assign(parsed.data, Object.fromEntries(placeholders.map((prop) => [prop, REDACTED])));
  return parsed.data;
}

/** The HTML and plain text of a template for data that validTemplateData returned. */
export async function renderBody(
  template: EmailTemplate,
  data: Record<string, unknown>,
  links: EmailLinks,
  language: { locale: string; t: Translate },
): Promise<{ html: string; text: string }> {
  const element = createElement(template.component, { ...data, links, ...language });
  // one React render: `render(element, { plainText: true })` renders the same HTML again and then
  // converts it with toPlainText, so converting this render's HTML gives the same text for half
  // the CPU (a render is the largest CPU cost of a send)
  const html = await renderHtml(element);
  return { html, text: toPlainText(html) };
}

/**
 * Validates the data against the template's schema (validTemplateData), then renders subject,
 * HTML and plain text, in the template's locale for `locale` (the recipient's; fallback chain:
 * resolveLocale).
 */
export async function renderEmail(template: EmailTemplate, data: unknown, links: EmailLinks, locale?: string | null): Promise<RenderedEmail> {
  const valid = validTemplateData(template, data);
  const language = templateLanguage(template, locale);
  const { html, text } = await renderBody(template, valid, links, language);
  return {
    subject: template.subject(valid, language.t),
    category: template.category ?? DEFAULT_EMAIL_CATEGORY,
    html,
    text,
    locale: language.locale,
  };
}
