/**
 * `npm run email:preview [-- <template-key>] [--data '{"firstName":"Ada"}'] [--locale fr-CA] [--out dir]`
 * Renders templates from journeys/templates with their sample data (or --data) and writes, per
 * template, `<key>.html` and `<key>.txt` plus an index.html that shows subject, HTML and text
 * side by side, in `--locale` (as for a contact with that `locale`; docs/email.md, "Languages"). Links point at placeholder unsubscribe/preference URLs; no tracking is applied.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createTemplateRegistry } from '@waymark/email/email-template';
import { escapeHtml } from '@waymark/email/escape-html';
import { renderEmail } from '@waymark/email/render-email';
import { emailTemplates } from '@waymark/journeys/templates/registry';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { data: { type: 'string' }, locale: { type: 'string' }, out: { type: 'string', default: '.data/email-preview' } },
});

const registry = createTemplateRegistry(emailTemplates);
const keys = positionals.length > 0 ? positionals : registry.keys();
const outDir = resolve(values.out ?? '.data/email-preview');
mkdirSync(outDir, { recursive: true });
const links = {
  unsubscribeUrl: 'http://localhost:3002/v1/email/unsubscribe?token=preview',
  preferencesUrl: 'http://localhost:3002/v1/email/preferences?token=preview',
};

const sections: string[] = [];
let failed = false;
for (const key of keys) {
  const template = registry.find(key);
  if (template === undefined) {
    console.error(`unknown template "${key}" (known: ${registry.keys().join(', ')})`);
    failed = true;
    continue;
  }
  const data = values.data === undefined ? template.sampleData : (JSON.parse(values.data) as unknown);
  try {
    const rendered = await renderEmail(template, data, links, values.locale);
    writeFileSync(resolve(outDir, `${key}.html`), rendered.html);
    writeFileSync(resolve(outDir, `${key}.txt`), rendered.text);
    console.log(`${key}  [${rendered.category}, ${rendered.locale}]  subject: ${rendered.subject}`);
    sections.push(`<section><h2>${escapeHtml(key)} <small>(${escapeHtml(rendered.category)})</small></h2>
<p><strong>Subject:</strong> ${escapeHtml(rendered.subject)}</p>
<div class="pair"><iframe title="${escapeHtml(key)} HTML" src="${encodeURIComponent(key)}.html"></iframe><pre>${escapeHtml(rendered.text)}</pre></div></section>`);
  } catch (error) {
    console.error(`${key}: ${(error as Error).message}`);
    failed = true;
  }
}
writeFileSync(
  resolve(outDir, 'index.html'),
  `<!doctype html><html lang="en"><meta charset="utf-8"><title>Email templates</title>
<style>body{font:14px system-ui;margin:24px}.pair{display:flex;gap:16px;flex-wrap:wrap}iframe{width:640px;height:720px;border:1px solid #ddd}pre{flex:1;min-width:280px;white-space:pre-wrap;background:#f6f6f6;padding:12px}</style>
<h1>Email templates</h1>${sections.join('\n')}</html>`,
);
console.log(`\nwrote ${resolve(outDir, 'index.html')}`);
process.exit(failed ? 1 : 0);
