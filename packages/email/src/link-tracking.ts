import { Parser } from 'htmlparser2';
import { escapeHtml } from './escape-html';
import { applyHtmlEdits, type HtmlEdit } from './html-edits';

/**
 * Link rewriting (docs/email.md, Tracking), on the tokens of an HTML parser (htmlparser2), never
 * with regular expressions. Phase 1 (`collectTrackableUrls`) lists the unique URLs so the caller
 * can create one tracked link per URL; phase 2 (`applyTracking`) rewrites every occurrence to its
 * link id and injects the open pixel before `</body>`.
 *
 * The parser only reports where each clickable `href` and the closing `</body>` sit; the email is
 * then the template's own HTML with those places replaced. Building a document tree and
 * serializing it again (cheerio, parse5) cost about a fifth of a broadcast send's CPU
 * (docs/broadcasts.md, "How fast") and changed nothing a mail client sees.
 */

/**
 * Pages that must keep working when tracking is down and that must not count as clicks; the
 * studio's reset and invitation links also carry a one-time credential that must not be copied
 * into tracked_links or pass through a redirect.
 */
const UNTRACKED_PATHS = ['/v1/email/unsubscribe', '/v1/email/preferences', '/studio/reset-password', '/studio/accept-invite'];

/** Elements whose href a recipient follows; `<link>` in the head (fonts, styles) is not a click. */
const CLICKABLE = new Set(['a', 'area']);

export function isTrackableUrl(href: string): boolean {
  const value = href.trim();
  if (UNTRACKED_PATHS.some((path) => value.includes(path))) return false;
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return false; // relative links, fragments, template placeholders
  }
  return parsed.protocol === 'http:' || parsed.protocol === 'https:';
}

/** One trackable `href` attribute: where it sits in the HTML (end exclusive) and the URL a browser follows. */
interface HrefPlace {
  start: number;
  end: number;
  url: string;
}

interface TrackingPlaces {
  hrefs: HrefPlace[];
  /** where `</body>` starts; undefined for a fragment without one (the pixel then goes last) */
  bodyEnd: number | undefined;
}

/**
 * `onHref` hears every href a recipient can follow (the first of each clickable element), tracked
 * or not, with its value as a browser follows it.
 */
function findPlaces(html: string, secrets: readonly string[] = [], onHref?: (url: string) => void): TrackingPlaces {
  const hrefs: HrefPlace[] = [];
  let bodyEnd: number | undefined;
  let clickable = false;
  let seenHref = false;
  const parser: Parser = new Parser(
    {
      onopentagname(name) {
        clickable = CLICKABLE.has(name);
        seenHref = false;
      },
      onattribute(name, value) {
        // a browser follows the first href of an element; later duplicates are ignored
        if (!clickable || name !== 'href' || seenHref) return;
        seenHref = true;
        onHref?.(value);
        if (isTrackableUrl(value) && !secrets.some((secret) => value.includes(secret)))
          hrefs.push({ start: parser.startIndex, end: parser.endIndex, url: value.trim() });
      },
      onclosetag(name, isImplied) {
        if (name === 'body' && !isImplied && bodyEnd === undefined) bodyEnd = parser.startIndex;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(html);
  return { hrefs, bodyEnd };
}

/** Unique trackable URLs, in document order (entities decoded: the URL as a browser would follow it). */
export function collectTrackableUrls(html: string): string[] {
  return parseForTracking(html).urls;
}

export interface TrackableDocument {
  /** what collectTrackableUrls returns */
  urls: string[];
  /** what applyTracking returns, from the same parse */
  apply(options: ApplyTrackingOptions): string;
}

/**
 * Both phases on one parse (a send needs both, and parsing the HTML is most of their cost).
 * `secrets` are the values of the template's secret props (secret-props.ts): a link holding one is
 * a credential, left as it is, like the studio's reset and invitation links.
 */
export function parseForTracking(html: string, secrets: readonly string[] = []): TrackableDocument {
  const places = findPlaces(html, secrets);
  return { urls: [...new Set(places.hrefs.map((place) => place.url))], apply: (options) => rewrite(html, places, options) };
}

export function clickUrl(publicUrl: string, trackedLinkId: string): string {
  return `${publicUrl}/v1/t/c/${trackedLinkId}`;
}

/** The invisible link of a send (docs/email.md, "Machine opens and clicks"): a click URL whose id is the send's. */
export function honeypotUrl(publicUrl: string, emailSendId: string): string {
  return clickUrl(publicUrl, emailSendId);
}

export function openPixelUrl(publicUrl: string, emailSendId: string): string {
  return `${publicUrl}/v1/t/o/${emailSendId}`;
}

export interface ApplyTrackingOptions {
  publicUrl: string;
  emailSendId: string;
  /** original URL → tracked link id, for every URL `collectTrackableUrls` returned */
  linkIds: ReadonlyMap<string, string>;
}

export function applyTracking(html: string, options: ApplyTrackingOptions): string {
  return rewrite(html, findPlaces(html), options);
}

/** The tracked form of a link's `href` attribute. */
function trackedHref(publicUrl: string, trackedLinkId: string): string {
  return `href="${escapeHtml(clickUrl(publicUrl, trackedLinkId))}"`;
}

/** What goes before `</body>` (else last): the send's honeypot link and open pixel. */
function trackingMarkup(options: ApplyTrackingOptions): string {
  // No person can see or reach the honeypot link (hidden, empty, out of the tab order and the
  // accessibility tree), so whoever follows it is a machine: link scanners fetch every href.
  // It carries the send's id, which the click route knows as the honeypot of that send.
  const honeypot = `<a href="${escapeHtml(honeypotUrl(options.publicUrl, options.emailSendId))}" style="display:none" aria-hidden="true" tabindex="-1"></a>`;
  const pixel = `<img src="${escapeHtml(openPixelUrl(options.publicUrl, options.emailSendId))}" width="1" height="1" alt="" style="display:none">`;
  return honeypot + pixel;
}

function linkId(options: ApplyTrackingOptions, url: string): string {
  const id = options.linkIds.get(url);
  if (id === undefined) throw new Error(`No tracked link for ${url}`);
  return id;
}

function rewrite(html: string, places: TrackingPlaces, options: ApplyTrackingOptions): string {
  const edits: HtmlEdit[] = places.hrefs.map((place) => ({
    start: place.start,
    end: place.end,
    text: trackedHref(options.publicUrl, linkId(options, place.url)),
  }));
  const insertAt = places.bodyEnd ?? html.length;
  // a link after `</body>` comes after the pixel: applyHtmlEdits puts them in document order
  edits.push({ start: insertAt, end: insertAt, text: trackingMarkup(options) });
  return applyHtmlEdits(html, edits);
}

/**
 * One piece of an email whose tracking is planned once for many sends (render-plan.ts): the
 * HTML as it is, a per-recipient value (its index), a tracked link's href, or the honeypot and
 * pixel.
 */
export type TrackedPiece = string | { slot: number } | { href: string } | { pixel: true };

/**
 * The pieces of an HTML rendered with stand-ins (render-plan.ts: start, end, slot) in the places of
 * per-recipient values. The tracked links and the pixel's place are those of any value put in,
 * since no value's character can start or end a tag, an attribute or an entity (render-plan.ts
 * admits only such values). Undefined when a link a recipient can follow holds a stand-in, so the
 * value could make it tracked or not, unless an untracked path in its own text keeps it untracked
 * whatever the value.
 */
export function planTracking(
  html: string,
  standIns: readonly { start: number; end: number; slot: number }[],
  holdsStandIn: (url: string) => boolean,
): { pieces: TrackedPiece[]; urls: string[] } | undefined {
  let unsure = false;
  const places = findPlaces(html, [], (url) => {
    if (holdsStandIn(url) && !UNTRACKED_PATHS.some((path) => url.includes(path))) unsure = true;
  });
  if (unsure) return undefined;
  const insertAt = places.bodyEnd ?? html.length;
  const cuts: { start: number; end: number; piece: TrackedPiece }[] = [
    ...standIns.map((standIn) => ({ start: standIn.start, end: standIn.end, piece: { slot: standIn.slot } })),
    ...places.hrefs.map((place) => ({ start: place.start, end: place.end, piece: { href: place.url } })),
    { start: insertAt, end: insertAt, piece: { pixel: true } as const },
  ].sort((a, b) => a.start - b.start || a.end - b.end);
  const pieces: TrackedPiece[] = [];
  let at = 0;
  for (const cut of cuts) {
    if (cut.start < at) return undefined; // overlapping places: not a plan this module can keep
    if (cut.start > at) pieces.push(html.slice(at, cut.start));
    pieces.push(cut.piece);
    at = cut.end;
  }
  if (at < html.length) pieces.push(html.slice(at));
  return { pieces, urls: [...new Set(places.hrefs.map((place) => place.url))] };
}

/** The HTML of planned pieces for one send: `values` fill the slots, as applyTracking would have rewritten the filled HTML. */
export function applyTrackedPieces(pieces: readonly TrackedPiece[], values: readonly string[], options: ApplyTrackingOptions): string {
  let html = '';
  for (const piece of pieces) {
    if (typeof piece === 'string') html += piece;
    else if ('slot' in piece) html += values[piece.slot]!;
    else if ('href' in piece) html += trackedHref(options.publicUrl, linkId(options, piece.href));
    else html += trackingMarkup(options);
  }
  return html;
}
