/**
 * The public HTML pages (unsubscribe confirmation, preference center, error). Plain server-side
 * HTML: no scripts, every dynamic value escaped, readable at 320 px, usable with a keyboard and
 * a screen reader (landmarks, headings, status text rather than colour alone).
 */

import { escapeHtml } from './escape-html';

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

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
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
<footer class="muted">Email preferences</footer>
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
}

/**
 * What opening an unsubscribe link shows: a question, not a change. Link scanners (Safe Links,
 * Mimecast, Proofpoint) fetch every link of a delivered message, so a visit must not unsubscribe
 * anyone (docs/email.md, "Unsubscribe and preference pages"); the button posts the same URL.
 */
export function questionPage(input: QuestionPageInput): string {
  const scope = lowerFirst(input.categoryLabel ?? 'all emails');
  const unsubscribe = input.action === 'unsubscribe';
  const title = unsubscribe ? `Unsubscribe from ${scope}?` : `Resubscribe to ${scope}?`;
  const text = unsubscribe
    ? `<span class="email">${escapeHtml(input.email)}</span> will no longer receive ${escapeHtml(scope)}.`
    : `<span class="email">${escapeHtml(input.email)}</span> will receive ${escapeHtml(scope)} again.`;
  return page(
    title,
    `<div class="icon" aria-hidden="true">✉️</div>
<h1>${escapeHtml(title)}</h1>
<p>${text}</p>
<div class="actions">
${postButton({ action: input.formAction, label: unsubscribe ? 'Unsubscribe' : 'Resubscribe', primary: true })}
<a class="button" href="${escapeHtml(input.preferencesUrl)}">Manage email preferences</a>
</div>`,
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
}

export function confirmationPage(input: ConfirmationPageInput): string {
  const scope = lowerFirst(input.categoryLabel ?? 'all emails');
  const title = input.action === 'unsubscribe' ? 'You are unsubscribed' : 'You are resubscribed';
  const text =
    input.action === 'unsubscribe'
      ? `<span class="email">${escapeHtml(input.email)}</span> will no longer receive ${escapeHtml(scope)}.`
      : `<span class="email">${escapeHtml(input.email)}</span> will receive ${escapeHtml(scope)} again.`;
  return page(
    title,
    `<div class="icon" aria-hidden="true">${input.action === 'unsubscribe' ? '✉️' : '✅'}</div>
<h1 role="status">${escapeHtml(title)}</h1>
<p>${text}</p>
<p class="muted">Changed your mind, or want to choose which emails you get?</p>
<div class="actions">
${postButton({ action: input.undoUrl, label: 'Undo' })}
<a class="button primary" href="${escapeHtml(input.preferencesUrl)}">Manage email preferences</a>
</div>`,
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
}

/** An unsubscribe link of a required category's email: nothing changed, and why. */
export function alwaysSentPage(input: { email: string; categoryLabel: string; preferencesUrl: string }): string {
  const title = `${input.categoryLabel} are always sent`;
  return page(
    title,
    `<div class="icon" aria-hidden="true">✉️</div>
<h1 role="status">${escapeHtml(title)}</h1>
<p><span class="email">${escapeHtml(input.email)}</span> gets these emails because you asked for them (a password reset, an invitation, a receipt), so they cannot be turned off. Nothing was changed.</p>
<p class="muted">You can still choose which other emails you get.</p>
<p><a class="button primary" href="${escapeHtml(input.preferencesUrl)}">Manage email preferences</a></p>`,
  );
}

export function preferenceCenterPage(input: PreferenceCenterInput): string {
  const items = input.categories
    .map((category) =>
      category.required
        ? `<li>
  <div>
    <span class="label" id="cat-${escapeHtml(category.key)}">${escapeHtml(category.label)}</span>
    <span class="muted">${escapeHtml(category.description)}</span><br>
    <span class="muted">You asked for these emails, so unsubscribing does not stop them.</span><br>
    <span class="status on">Always sent</span>
  </div>
</li>`
        : `<li>
  <div>
    <span class="label" id="cat-${escapeHtml(category.key)}">${escapeHtml(category.label)}</span>
    <span class="muted">${escapeHtml(category.description)}</span><br>
    <span class="status ${category.subscribed ? 'on' : 'off'}">${category.subscribed ? 'Subscribed' : 'Unsubscribed'}</span>
  </div>
  ${postButton({ action: category.toggleUrl, label: category.subscribed ? 'Unsubscribe' : 'Resubscribe', from: 'preference_center', describedBy: `cat-${category.key}` })}
</li>`,
    )
    .join('\n');
  const suppressed = input.suppressed
    ? `<p class="notice" role="note">Delivery to this address is paused because earlier emails bounced or were reported as spam. Contact support to lift it.</p>`
    : '';
  const always = input.categories.filter((category) => category.required).map((category) => category.label);
  // emails the person asked for still arrive: the global switch must not promise otherwise
  const alwaysNote = always.length === 0 ? '' : ` (except ${escapeHtml(always.join(', '))}: you asked for those)`;
  const global = input.unsubscribedAll
    ? `<p>You are <strong>unsubscribed from all emails</strong>${alwaysNote}.</p>
${postButton({ action: input.globalToggleUrl, label: 'Resubscribe to emails', primary: true, from: 'preference_center' })}`
    : `<p class="muted">Stop every email we send to this address, whatever the topic${alwaysNote}.</p>
${postButton({ action: input.globalToggleUrl, label: 'Unsubscribe from all emails', from: 'preference_center' })}`;
  return page(
    'Email preferences',
    `<h1>Email preferences</h1>
<p class="muted">For <span class="email">${escapeHtml(input.email)}</span></p>
${suppressed}
<h2>Topics</h2>
<ul class="prefs" aria-label="Email topics">
${items}
</ul>
<h2>All emails</h2>
${global}`,
  );
}

export function errorPage(input: { title: string; message: string }): string {
  return page(
    input.title,
    `<div class="icon" aria-hidden="true">⚠️</div>
<h1>${escapeHtml(input.title)}</h1>
<p>${escapeHtml(input.message)}</p>
<p class="muted">Use the link in a recent email from us, or reply to that email and we will update your preferences for you.</p>`,
  );
}
