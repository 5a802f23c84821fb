import { load, type CheerioAPI } from 'cheerio';

/**
 * Link rewriting (docs/email.md, Tracking), on a parsed document (cheerio), never with regular expressions.
 * Phase 1 (`collectTrackableUrls`) lists the unique URLs so the caller can create one tracked
 * link per URL; phase 2 (`applyTracking`) rewrites every occurrence to its link id and injects
 * the open pixel before `</body>`.
 */

/**
 * Pages that must keep working when tracking is down and that must not count as clicks; the
 * studio's reset and invitation links also carry a one-time credential that must not be copied
 * into tracked_links or pass through a redirect.
 */
const UNTRACKED_PATHS = ['/v1/email/unsubscribe', '/v1/email/preferences', '/studio/reset-password', '/studio/accept-invite'];

/** Elements whose href a recipient follows; `<link>` in the head (fonts, styles) is not a click. */
const CLICKABLE = 'a[href], area[href]';

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

function trackableHrefs($: CheerioAPI): string[] {
  const hrefs: string[] = [];
  $(CLICKABLE).each((_index, element) => {
    const href = $(element).attr('href');
    if (href !== undefined && isTrackableUrl(href)) hrefs.push(href.trim());
  });
  return hrefs;
}

/** Unique trackable URLs, in document order (entities decoded: the URL as a browser would follow it). */
export function collectTrackableUrls(html: string): string[] {
  return parseForTracking(html).urls;
}

export interface TrackableDocument {
  /** what collectTrackableUrls returns */
  urls: string[];
  /** what applyTracking returns, on the same parsed document */
  apply(options: ApplyTrackingOptions): string;
}

/**
 * Both phases on one parse (a send needs both, and parsing the HTML is most of their cost). The
 * document is rewritten in place: call `apply` once.
 */
export function parseForTracking(html: string): TrackableDocument {
  const $ = load(html);
  return { urls: [...new Set(trackableHrefs($))], apply: (options) => rewrite($, options) };
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
  return rewrite(load(html), options);
}

function rewrite($: CheerioAPI, options: ApplyTrackingOptions): string {
  $(CLICKABLE).each((_index, element) => {
    const node = $(element);
    const href = node.attr('href');
    if (href === undefined || !isTrackableUrl(href)) return;
    const id = options.linkIds.get(href.trim());
    if (id === undefined) throw new Error(`No tracked link for ${href.trim()}`);
    node.attr('href', clickUrl(options.publicUrl, id));
  });
  const pixel = $('<img>').attr({
    src: openPixelUrl(options.publicUrl, options.emailSendId),
    width: '1',
    height: '1',
    alt: '',
    style: 'display:none',
  });
  // No person can see or reach this link (hidden, empty, out of the tab order and the
  // accessibility tree), so whoever follows it is a machine: link scanners fetch every href.
  // It carries the send's id, which the click route knows as the honeypot of that send.
  const honeypot = $('<a></a>').attr({
    href: honeypotUrl(options.publicUrl, options.emailSendId),
    style: 'display:none',
    'aria-hidden': 'true',
    tabindex: '-1',
  });
  const body = $('body');
  if (body.length > 0) body.append(honeypot, pixel);
  else $.root().append(honeypot, pixel);
  return $.html();
}
