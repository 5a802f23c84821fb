import { createElement } from 'react';
import { plainTextSelectors, render } from '@react-email/render';
import { compile } from 'html-to-text';
import { DEFAULT_EMAIL_CATEGORY, type EmailLinks, type EmailTemplate } from './email-template';

export interface RenderedEmail {
  subject: string;
  category: string;
  html: string;
  text: string;
}

/**
 * React Email's `toPlainText(html)` is html-to-text's `convert(html, options)` with these options,
 * and `convert` compiles its options into a converter (selector decision trees) on every call:
 * about 8% of the worker main thread's CPU per send went there (docs/scaling.md). Compiled once here, the text is
 * the same (types: html-to-text.d.ts).
 */
const toPlainText = compile({ wordwrap: false, selectors: plainTextSelectors });

export class TemplateDataError extends Error {
  constructor(templateKey: string, detail: string) {
    super(`Invalid data for template "${templateKey}": ${detail}`);
    this.name = 'TemplateDataError';
  }
}

/** Validates the data against the template's schema, then renders subject, HTML and plain text. */
export async function renderEmail(template: EmailTemplate, data: unknown, links: EmailLinks): Promise<RenderedEmail> {
  const parsed = template.schema.safeParse(data ?? {});
  if (!parsed.success) {
    const detail = parsed.error.issues
      .slice(0, 5)
      .map((issue) => `${issue.path.join('.') || '(data)'}: ${issue.message}`)
      .join('; ');
    throw new TemplateDataError(template.key, detail);
  }
  const element = createElement(template.component, { ...parsed.data, links });
  // one React render: `render(element, { plainText: true })` renders the same HTML again and then
  // converts it with toPlainText, so converting this render's HTML gives the same text for half
  // the CPU (a render is the largest CPU cost of a send)
  const html = await render(element);
  const text = toPlainText(html);
  return {
    subject: template.subject(parsed.data),
    category: template.category ?? DEFAULT_EMAIL_CATEGORY,
    html,
    text,
  };
}
