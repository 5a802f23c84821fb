/**
 * The public HTML pages (unsubscribe confirmation, preference center, error). Plain server-side
 * HTML: no scripts, every dynamic value escaped, readable at 320 px, usable with a keyboard and
 * a screen reader (landmarks, headings, status text rather than colour alone).
 */

import { escapeHtml } from './escape-html';
import { resolveLocale, translator, type MessageValues, type Translate } from './message-catalog';
import { pageMessages } from './page-messages';

type PageText = Translate<keyof (typeof pageMessages)['messages'][string] & string>;

/** The pages' language for a contact's `locale` (fr-CA → fr → English; docs/email.md, "Languages"). */
function language(locale: string | undefined): { lang: string; t: PageText } {
  const lang = resolveLocale(pageMessages, locale);
  return { lang, t: translator(pageMessages, lang) };
}

/**
 * A message as HTML: its text escaped, then each `{name}` of `markup` put in as the (already
 * safe) markup given, so a translation can place the address or a bold phrase where its grammar wants.
 */
function withMarkup(t: PageText, key: Parameters<PageText>[0], values: MessageValues, markup: Record<string, string>): string {
  const names = Object.keys(markup);
  const placeholders = Object.fromEntries(names.map((name, index) => [name, `\u0001${index}\u0001`]));
  let html = escapeHtml(t(key, { ...values, ...placeholders }));
  names.forEach((name, index) => {
    html = html.replace(`\u0001${index}\u0001`, markup[name]!);
  });
  return html;
}

function emailMarkup(email: string): string {
  return `<span class="email">${escapeHtml(email)}</span>`;
}

const STYLE = `
  :root { color-scheme: light; }
  * { box-sizing: border-box; }
  body { margin: 0; background: #f4f5f7; color: #111827; font: 16px/1.55 -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; }
  main { max-width: 34rem; margin: 0 auto; padding: 2.5rem 1rem; }
  .card { background: #fff; border: 1px solid #e5e7eb; border-radius: 12px; padding: 1.75rem 1.5rem; box-shadow: 0 1px 2px rgba(0,0,0,.04); }
  h1 { font-size: 1.5rem; line-height: 1.25; margin: 0 0 .75rem; }
  h2 { font-size: 1rem; margin: 1.75rem 0 .5rem; }
  p { margin: 0 0 1rem; }
  .muted { color: #4b5563; font-size: .9375rem; }
  .email { font-weight: 600; word-break: break-all; }
  ul.prefs { list-style: none; margin: 0; padding: 0; border-top: 1px solid #e5e7eb; }
  ul.prefs li { display: flex; flex-wrap: wrap; gap: .75rem; align-items: center; justify-content: space-between; padding: 1rem 0; border-bottom: 1px solid #e5e7eb; }
  .label { font-weight: 600; display: block; }
  .status { display: inline-block; font-size: .8125rem; font-weight: 600; border-radius: 999px; padding: .125rem .625rem; margin-top: .25rem; }
  .on { background: #dcfce7; color: #14532d; }
  .off { background: #f3f4f6; color: #374151; }
  form { margin: 0; }
  .button { display: inline-block; min-height: 44px; padding: .625rem 1rem; border-radius: 8px; font: inherit; font-weight: 600; text-decoration: none; border: 1px solid #4338ca; color: #4338ca; background: #fff; cursor: pointer; }
  .button.primary { background: #4338ca; color: #fff; }
  .button:hover { text-decoration: underline; }
  a:focus-visible, button:focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
  .actions { display: flex; flex-wrap: wrap; gap: .75rem; align-items: center; margin: 0 0 1rem; }
  .notice { background: #fffbeb; border: 1px solid #fcd34d; border-radius: 8px; padding: .75rem 1rem; margin: 0 0 1rem; }
  .icon { font-size: 2rem; line-height: 1; margin: 0 0 .75rem; }
  footer { text-align: center; margin-top: 1.25rem; }
`;

function page(title: string, body: string, { lang, t }: { lang: string; t: PageText }): string {
  return `<!doctype html>
<html lang="${escapeHtml(lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<div class="card">
${body}
</div>
<footer class="muted">${escapeHtml(t('footer'))}</footer>
</main>
</body>
</html>`;
}

/**
 * A form that changes preferences. The signed token in its action URL is the whole authority (no
 * session, so no cookie for another site to ride on), and it works without JavaScript.
 */
function postButton(input: { action: string; label: string; primary?: boolean; from?: 'preference_center'; describedBy?: string }): string {
  const from = input.from === undefined ? '' : `<input type="hidden" name="from" value="${input.from}">`;
  const describedBy = input.describedBy === undefined ? '' : ` aria-describedby="${escapeHtml(input.describedBy)}"`;
  return `<form method="post" action="${escapeHtml(input.action)}">${from}<button class="button${input.primary === true ? ' primary' : ''}" type="submit"${describedBy}>${escapeHtml(input.label)}</button></form>`;
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

export interface QuestionPageInput {
  action: 'unsubscribe' | 'resubscribe';
  email: string;
  /** label of the category, or undefined for all emails */
  categoryLabel?: string | undefined;
  /** where the button posts: the link's own URL, token included */
  formAction: string;
  preferencesUrl: string;
  /** the contact's `locale` property (docs/email.md, "Languages"); undefined: English */
  locale?: string | undefined;
}

/** What the pages call a category, or all emails when there is none. */
function scopeOf(t: PageText, categoryLabel: string | undefined): string {
  return lowerFirst(categoryLabel ?? t('allEmails'));
}

/**
 * What opening an unsubscribe link shows: a question, not a change. Link scanners (Safe Links,
 * Mimecast, Proofpoint) fetch every link of a delivered message, so a visit must not unsubscribe
 * anyone (docs/email.md, "Unsubscribe and preference pages"); the button posts the same URL.
 */
export function questionPage(input: QuestionPageInput): string {
  const lang = language(input.locale);
  const { t } = lang;
  const scope = scopeOf(t, input.categoryLabel);
  const unsubscribe = input.action === 'unsubscribe';
  const title = t(unsubscribe ? 'unsubscribeQuestion' : 'resubscribeQuestion', { scope });
  const text = withMarkup(t, unsubscribe ? 'willNotReceive' : 'willReceive', { scope }, { email: emailMarkup(input.email) });
  return page(
    title,
    `<div class="icon" aria-hidden="true">✉️</div>
<h1>${escapeHtml(title)}</h1>
<p>${text}</p>
<div class="actions">
${postButton({ action: input.formAction, label: t(unsubscribe ? 'unsubscribe' : 'resubscribe'), primary: true })}
<a class="button" href="${escapeHtml(input.preferencesUrl)}">${escapeHtml(t('managePreferences'))}</a>
</div>`,
    lang,
  );
}

export interface ConfirmationPageInput {
  action: 'unsubscribe' | 'resubscribe';
  email: string;
  /** label of the category, or undefined for all emails */
  categoryLabel?: string | undefined;
  /** posts the opposite action: the person takes back what they just did */
  undoUrl: string;
  preferencesUrl: string;
  locale?: string | undefined;
}

export function confirmationPage(input: ConfirmationPageInput): string {
  const lang = language(input.locale);
  const { t } = lang;
  const scope = scopeOf(t, input.categoryLabel);
  const unsubscribe = input.action === 'unsubscribe';
  const title = t(unsubscribe ? 'unsubscribed' : 'resubscribed');
  const text = withMarkup(t, unsubscribe ? 'willNotReceive' : 'willReceive', { scope }, { email: emailMarkup(input.email) });
  return page(
    title,
    `<div class="icon" aria-hidden="true">${unsubscribe ? '✉️' : '✅'}</div>
<h1 role="status">${escapeHtml(title)}</h1>
<p>${text}</p>
<p class="muted">${escapeHtml(t('changedMind'))}</p>
<div class="actions">
${postButton({ action: input.undoUrl, label: t('undo') })}
<a class="button primary" href="${escapeHtml(input.preferencesUrl)}">${escapeHtml(t('managePreferences'))}</a>
</div>`,
    lang,
  );
}

export interface PreferenceCenterInput {
  email: string;
  suppressed: boolean;
  unsubscribedAll: boolean;
  /** URL the global switch posts to (unsubscribe when subscribed, resubscribe otherwise) */
  globalToggleUrl: string;
  /** a required category (emails the person asked for) has no toggle: it is always sent; a toggle posts to its toggleUrl */
  categories: ({ key: string; label: string; description: string } & ({ required: true } | { required: false; subscribed: boolean; toggleUrl: string }))[];
  locale?: string | undefined;
}

/** An unsubscribe link of a required category's email: nothing changed, and why. */
export function alwaysSentPage(input: { email: string; categoryLabel: string; preferencesUrl: string; locale?: string | undefined }): string {
  const lang = language(input.locale);
  const { t } = lang;
  const title = t('alwaysSentTitle', { label: input.categoryLabel });
  return page(
    title,
    `<div class="icon" aria-hidden="true">✉️</div>
<h1 role="status">${escapeHtml(title)}</h1>
<p>${withMarkup(t, 'alwaysSentText', {}, { email: emailMarkup(input.email) })}</p>
<p class="muted">${escapeHtml(t('alwaysSentOthers'))}</p>
<p><a class="button primary" href="${escapeHtml(input.preferencesUrl)}">${escapeHtml(t('managePreferences'))}</a></p>`,
    lang,
  );
}

export function preferenceCenterPage(input: PreferenceCenterInput): string {
  const lang = language(input.locale);
  const { t } = lang;
  const items = input.categories
    .map((category) =>
      category.required
        ? `<li>
  <div>
    <span class="label" id="cat-${escapeHtml(category.key)}">${escapeHtml(category.label)}</span>
    <span class="muted">${escapeHtml(category.description)}</span><br>
    <span class="muted">${escapeHtml(t('requiredNote'))}</span><br>
    <span class="status on">${escapeHtml(t('alwaysSent'))}</span>
  </div>
</li>`
        : `<li>
  <div>
    <span class="label" id="cat-${escapeHtml(category.key)}">${escapeHtml(category.label)}</span>
    <span class="muted">${escapeHtml(category.description)}</span><br>
    <span class="status ${category.subscribed ? 'on' : 'off'}">${escapeHtml(t(category.subscribed ? 'subscribed' : 'unsubscribedStatus'))}</span>
  </div>
  ${postButton({ action: category.toggleUrl, label: t(category.subscribed ? 'unsubscribe' : 'resubscribe'), from: 'preference_center', describedBy: `cat-${category.key}` })}
</li>`,
    )
    .join('\n');
  const suppressed = input.suppressed ? `<p class="notice" role="note">${escapeHtml(t('suppressed'))}</p>` : '';
  const always = input.categories.filter((category) => category.required).map((category) => category.label);
  // emails the person asked for still arrive: the global switch must not promise otherwise
  const except = always.length === 0 ? '' : t('exceptRequired', { labels: always.join(', ') });
  const global = input.unsubscribedAll
    ? `<p>${withMarkup(t, 'unsubscribedAll', { except }, { strong: `<strong>${escapeHtml(t('unsubscribedAllStrong'))}</strong>` })}</p>
${postButton({ action: input.globalToggleUrl, label: t('resubscribeAll'), primary: true, from: 'preference_center' })}`
    : `<p class="muted">${escapeHtml(t('stopAll', { except }))}</p>
${postButton({ action: input.globalToggleUrl, label: t('unsubscribeAll'), from: 'preference_center' })}`;
  return page(
    t('title'),
    `<h1>${escapeHtml(t('title'))}</h1>
<p class="muted">${withMarkup(t, 'forAddress', {}, { email: emailMarkup(input.email) })}</p>
${suppressed}
<h2>${escapeHtml(t('topics'))}</h2>
<ul class="prefs" aria-label="${escapeHtml(t('topics'))}">
${items}
</ul>
<h2>${escapeHtml(t('all'))}</h2>
${global}`,
    lang,
  );
}

/** The page of a link that is not valid (expired, cut short): no contact is known, so in the default language. */
export function invalidLinkPage(): string {
  const lang = language(undefined);
  const { t } = lang;
  return page(
    t('invalidTitle'),
    `<div class="icon" aria-hidden="true">⚠️</div>
<h1>${escapeHtml(t('invalidTitle'))}</h1>
<p>${escapeHtml(t('invalidMessage'))}</p>
<p class="muted">${escapeHtml(t('errorHelp'))}</p>`,
    lang,
  );
}
