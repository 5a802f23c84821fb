import type { EmailLinks, EmailTemplate } from './email-template';
import { applyTrackedPieces, parseForTracking, planTracking, type ApplyTrackingOptions, type TrackableDocument, type TrackedPiece } from './link-tracking';
import { renderBody, templateLanguage, validTemplateData } from './render-email';
import { secretProps, textProps } from './secret-props';

/**
 * A send's render from a plan made once per template, locale and data (docs/email.md, "Render
 * plans"). A broadcast renders one template for many people whose emails differ only in a few
 * values: the footer links' tokens and the props a template declares text (`.meta({ text: true })`,
 * secret-props.ts: put into text or an attribute as they are, never decided on). The plan is the
 * template's HTML and plain text rendered with a stand-in in each such value's place, split at the
 * stand-ins, with the tracked links and the open pixel's place found once; a send fills it with
 * its own values instead of rendering React, converting to text and parsing for tracking again.
 *
 * The same bytes as a render of the send's own values:
 * - a value takes a place only when its characters are letters, digits, marks, or single spaces,
 *   dots and hyphens between them (a token: letters, digits, `_`, `.`, `-`): React writes such a
 *   value as it is, in text and in quoted attributes (it escapes only `& < > " '`), html-to-text
 *   keeps it as it is (it collapses runs of white space, which such a value cannot hold or end
 *   with, and decodes entities, which it cannot start), and it cannot open or close a tag, an
 *   attribute or an entity, so the parsers find the same places around it;
 * - the plan is rendered twice, with a short and a long stand-in: both renders must agree outside
 *   the stand-ins, and every stand-in must come back exactly as put in, so a template (or the text
 *   conversion) that measures, changes or cuts a value (its length, upper case, a slice) makes no plan;
 * - the first send of a plan renders its own values too, and the plan is kept only when it gives
 *   the same HTML, text, tracked links and tracked HTML;
 * - a plan is made on the second send of the same template, locale and other data, so one-off
 *   sends (a receipt's data) cost nothing more; a template with secret props gets none.
 */

export interface SendRender {
  subject: string;
  text: string;
  document: TrackableDocument;
}

const TEXT_VALUE = /^[\p{L}\p{M}\p{N}]+(?:[ .-][\p{L}\p{M}\p{N}]+)*$/u;
const TOKEN_VALUE = /^[\w.-]+$/;
const MAX_TEXT_LENGTH = 200;
const MAX_TOKEN_LENGTH = 400;
/**
 * A stand-in: a private-use character, the slot's lower-case letter, padding (the long one), and
 * another private-use character. Short (3 characters) and long (longer than any value), so that
 * a template or a text conversion that measures a value sees two different lengths; a letter, so
 * that a change of case shows; the private-use characters, which no value holds, so that a cut shows.
 */
const LONG_PAD = 'z'.repeat(MAX_TOKEN_LENGTH);
const STAND_IN = /\uE000([a-y])(z*)\uE001/g;
const STAND_IN_START = /\uE000/g;
const MAX_SLOTS = 25;
/** plans (and keys seen once) kept per template; past it they start again */
const MAX_KEYS = 500;

function standIn(slot: number, long: boolean): string {
  return `\uE000${String.fromCharCode(97 + slot)}${long ? LONG_PAD : ''}\uE001`;
}

type Piece = string | { slot: number };

interface Plan {
  html: Piece[];
  text: Piece[];
  /** the tracked pieces; undefined when a followable link holds a value (then each send parses its HTML) */
  tracked: { pieces: TrackedPiece[]; urls: string[] } | undefined;
}

/** One per-recipient value: a text prop of the data, or a token inside the links. */
type Slot = { prop: string; value: string } | { token: string; value: string };

const plans = new WeakMap<EmailTemplate, Map<string, Plan | 'seen' | 'none'>>();

function plansOf(template: EmailTemplate): Map<string, Plan | 'seen' | 'none'> {
  let byKey = plans.get(template);
  if (byKey === undefined || byKey.size >= MAX_KEYS) {
    byKey = new Map();
    plans.set(template, byKey);
  }
  return byKey;
}

function replaceInLinks(links: EmailLinks, find: string, put: string): EmailLinks {
  return { unsubscribeUrl: links.unsubscribeUrl.split(find).join(put), preferencesUrl: links.preferencesUrl.split(find).join(put) };
}

/** The per-recipient values of a send, or undefined when one cannot take a place (then the send renders in full). */
function slotsOf(template: EmailTemplate, data: Record<string, unknown>, links: EmailLinks, tokens: readonly string[]): Slot[] | undefined {
  const slots: Slot[] = [];
  for (const token of tokens) {
    if (!TOKEN_VALUE.test(token) || token.length > MAX_TOKEN_LENGTH) return undefined;
    const found = links.unsubscribeUrl.split(token).length + links.preferencesUrl.split(token).length - 2;
    if (found !== 1) return undefined;
    slots.push({ token, value: token });
  }
  for (const prop of textProps(template)) {
    const value = data[prop];
    if (typeof value === 'string' && value.length <= MAX_TEXT_LENGTH && TEXT_VALUE.test(value)) slots.push({ prop, value });
  }
  return slots.length <= MAX_SLOTS ? slots : undefined;
}

/** What the plan depends on besides the slots' values. */
function planKey(locale: string, data: Record<string, unknown>, links: EmailLinks, slots: readonly Slot[]): string | undefined {
  const keyData = { ...data };
  let keyLinks = links;
  slots.forEach((slot, index) => {
    if ('prop' in slot) keyData[slot.prop] = `\u0000${index}`;
    else keyLinks = replaceInLinks(keyLinks, slot.token, `\u0000${index}`);
  });
  try {
    return JSON.stringify([locale, keyData, keyLinks]);
  } catch {
    return undefined;
  }
}

/** `rendered` split at its stand-ins, or undefined when one did not come back exactly as put in. */
function splitAtStandIns(
  rendered: string,
  slots: number,
  long: boolean,
): { pieces: Piece[]; places: { start: number; end: number; slot: number }[] } | undefined {
  const pieces: Piece[] = [];
  const places: { start: number; end: number; slot: number }[] = [];
  let at = 0;
  for (const match of rendered.matchAll(STAND_IN)) {
    const slot = match[1]!.charCodeAt(0) - 97;
    if (slot >= slots || match[2] !== (long ? LONG_PAD : '')) return undefined;
    if (match.index > at) pieces.push(rendered.slice(at, match.index));
    pieces.push({ slot });
    places.push({ start: match.index, end: match.index + match[0].length, slot });
    at = match.index + match[0].length;
  }
  if (at < rendered.length) pieces.push(rendered.slice(at));
  const started = rendered.match(STAND_IN_START)?.length ?? 0;
  return started === places.length ? { pieces, places } : undefined;
}

function samePieces(a: readonly Piece[], b: readonly Piece[]): boolean {
  return (
    a.length === b.length &&
    a.every((piece, index) => {
      const other = b[index];
      return typeof piece === 'string' || typeof other === 'string' ? piece === other : other?.slot === piece.slot;
    })
  );
}

function fill(pieces: readonly Piece[], values: readonly string[]): string {
  let out = '';
  for (const piece of pieces) out += typeof piece === 'string' ? piece : values[piece.slot]!;
  return out;
}

async function makePlan(
  template: EmailTemplate,
  data: Record<string, unknown>,
  links: EmailLinks,
  language: ReturnType<typeof templateLanguage>,
  slots: readonly Slot[],
): Promise<Plan | undefined> {
  const split: { html: Piece[]; text: Piece[]; places: { start: number; end: number; slot: number }[]; source: string }[] = [];
  for (const long of [false, true]) {
    const standInData = { ...data };
    let standInLinks = links;
    slots.forEach((slot, index) => {
      if ('prop' in slot) standInData[slot.prop] = standIn(index, long);
      else standInLinks = replaceInLinks(standInLinks, slot.token, standIn(index, long));
    });
    let rendered;
    try {
      rendered = await renderBody(template, standInData, standInLinks, language);
    } catch {
      return undefined; // the template does something with a value that a stand-in cannot stand for
    }
    const html = splitAtStandIns(rendered.html, slots.length, long);
    const text = splitAtStandIns(rendered.text, slots.length, long);
    if (html === undefined || text === undefined) return undefined;
    split.push({ html: html.pieces, text: text.pieces, places: html.places, source: rendered.html });
  }
  const [short, long] = split as [(typeof split)[0], (typeof split)[0]];
  if (!samePieces(short.html, long.html) || !samePieces(short.text, long.text)) return undefined;
  return { html: short.html, text: short.text, tracked: planTracking(short.source, short.places, (url) => url.includes('\uE000')) };
}

function fromPlan(plan: Plan, subject: string, values: readonly string[]): SendRender {
  const { tracked } = plan;
  const document: TrackableDocument =
    tracked === undefined
      ? parseForTracking(fill(plan.html, values))
      : { urls: tracked.urls, apply: (options) => applyTrackedPieces(tracked.pieces, values, options) };
  return { subject, text: fill(plan.text, values), document };
}

/** Whether a plan gives exactly the send's own full render. */
function samePlanned(planned: SendRender, html: string, text: string, values: readonly string[], plan: Plan): boolean {
  if (planned.text !== text || fill(plan.html, values) !== html) return false;
  const full = parseForTracking(html);
  if (planned.document.urls.join('\n') !== full.urls.join('\n')) return false;
  const options: ApplyTrackingOptions = {
    publicUrl: 'https://plan.invalid',
    emailSendId: 'send',
    linkIds: new Map(full.urls.map((url, index) => [url, `link-${index}`])),
  };
  return planned.document.apply(options) === full.apply(options);
}

/**
 * What renderEmail and parseForTracking give for a send (subject, text, and the HTML's tracking),
 * from a plan when one fits (above). `tokens`: the parts of `links` that differ per recipient.
 * `secrets`: the values of the template's secret props (link-tracking.ts).
 */
export async function renderForSend(
  template: EmailTemplate,
  data: unknown,
  links: EmailLinks,
  options: { locale: string | null | undefined; tokens: readonly string[]; secrets: readonly string[] },
): Promise<SendRender> {
  const valid = validTemplateData(template, data);
  const language = templateLanguage(template, options.locale);
  const subject = template.subject(valid, language.t);
  const slots = secretProps(template).length === 0 ? slotsOf(template, valid, links, options.tokens) : undefined;
  const key = slots === undefined ? undefined : planKey(language.locale, valid, links, slots);
  const byKey = key === undefined ? undefined : plansOf(template);
  const known = key === undefined ? undefined : byKey?.get(key);
  const values = slots?.map((slot) => slot.value) ?? [];
  if (typeof known === 'object') return fromPlan(known, subject, values);

  const { html, text } = await renderBody(template, valid, links, language);
  if (key !== undefined && byKey !== undefined && slots !== undefined) {
    if (known === undefined) byKey.set(key, 'seen');
    else if (known === 'seen') {
      const plan = await makePlan(template, valid, links, language, slots);
      byKey.set(key, plan !== undefined && samePlanned(fromPlan(plan, subject, values), html, text, values, plan) ? plan : 'none');
    }
  }
  return { subject, text, document: parseForTracking(html, options.secrets) };
}
