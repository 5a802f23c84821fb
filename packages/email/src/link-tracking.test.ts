import { load } from 'cheerio';
import { describe, expect, it } from 'vitest';
import { applyTracking, collectTrackableUrls, isTrackableUrl } from './link-tracking';

const PUBLIC = 'https://mail.example.com';
const SEND = '00000000-0000-4000-8000-000000000001';

function track(html: string) {
  const urls = collectTrackableUrls(html);
  const linkIds = new Map(urls.map((url, index) => [url, `link-${index + 1}`]));
  const out = applyTracking(html, { publicUrl: PUBLIC, emailSendId: SEND, linkIds });
  const $ = load(out);
  return {
    urls,
    out,
    // the recipient's links; the invisible honeypot link has a test of its own
    hrefs: $('a:not([aria-hidden])')
      .map((_i, el) => $(el).attr('href'))
      .get(),
    $,
  };
}

describe('isTrackableUrl', () => {
  it.each([
    ['https://example.com/a', true],
    ['http://example.com', true],
    ['HTTPS://EXAMPLE.COM/UP', true],
    ['  https://example.com/padded  ', true],
    ['mailto:help@example.com', false],
    ['tel:+15551234567', false],
    ['/relative/path', false],
    ['#anchor', false],
    ['javascript:alert(1)', false],
    ['ftp://example.com/file', false],
    ['https://mail.example.com/v1/email/unsubscribe?token=abc', false],
    ['https://mail.example.com/v1/email/preferences?token=abc', false],
    ['{{placeholder}}', false],
    ['', false],
  ])('%s → %s', (href, expected) => {
    expect(isTrackableUrl(href)).toBe(expected);
  });
});

describe('link rewriting rules', () => {
  it('adds one invisible honeypot link, carrying the send id, that no person can see, tab to or hear', () => {
    const { $ } = track('<html><body><a href="https://a.example/x">a</a></body></html>');
    const honeypot = $('a[aria-hidden]');
    expect(honeypot).toHaveLength(1);
    expect(honeypot.attr('href')).toBe(`${PUBLIC}/v1/t/c/${SEND}`);
    expect(honeypot.attr('style')).toBe('display:none');
    expect(honeypot.attr('tabindex')).toBe('-1');
    expect(honeypot.text()).toBe('');
  });

  it('rewrites every http(s) href to {API_PUBLIC_URL}/v1/t/c/<id>', () => {
    const { hrefs } = track('<html><body><a href="https://a.example/x">a</a><a href="http://b.example">b</a></body></html>');
    expect(hrefs).toEqual([`${PUBLIC}/v1/t/c/link-1`, `${PUBLIC}/v1/t/c/link-2`]);
  });

  it('gives one tracked link to a URL that appears several times', () => {
    const { urls, hrefs } = track(
      '<body><a href="https://a.example/x">1</a><p><a href="https://a.example/x">2</a></p><a href="https://a.example/y">3</a></body>',
    );
    expect(urls).toEqual(['https://a.example/x', 'https://a.example/y']);
    expect(hrefs).toEqual([`${PUBLIC}/v1/t/c/link-1`, `${PUBLIC}/v1/t/c/link-1`, `${PUBLIC}/v1/t/c/link-2`]);
  });

  it('leaves mailto, tel, relative links, anchors and the unsubscribe/preference pages alone', () => {
    const untouched = [
      'mailto:help@example.com',
      'tel:+15551234567',
      '/pricing',
      '#top',
      `${PUBLIC}/v1/email/unsubscribe?token=t1`,
      `${PUBLIC}/v1/email/preferences?token=t2`,
    ];
    const { urls, hrefs } = track(`<body>${untouched.map((href) => `<a href="${href}">x</a>`).join('')}</body>`);
    expect(urls).toEqual([]);
    expect(hrefs).toEqual(untouched);
  });

  it('decodes entities: the stored URL is the one a browser follows, and &amp; duplicates collapse', () => {
    const { urls, hrefs } = track('<body><a href="https://a.example/?a=1&amp;b=2">x</a><a href="https://a.example/?a=1&b=2">y</a></body>');
    expect(urls).toEqual(['https://a.example/?a=1&b=2']);
    expect(hrefs).toEqual([`${PUBLIC}/v1/t/c/link-1`, `${PUBLIC}/v1/t/c/link-1`]);
  });

  it('does not touch text that merely looks like a link, nor <link> elements in the head', () => {
    const html = '<html><head><link rel="stylesheet" href="https://fonts.example/css"></head><body><p>href="https://x.example" is text</p></body></html>';
    const { urls, out } = track(html);
    expect(urls).toEqual([]);
    expect(out).toContain('href="https://fonts.example/css"');
    expect(out).toContain('href="https://x.example" is text');
  });

  it('injects the 1×1 pixel as the last element of <body>', () => {
    const { $ } = track('<html><body><p>hello</p></body></html>');
    const last = $('body').children().last();
    expect(last.is('img')).toBe(true);
    expect(last.attr()).toMatchObject({ src: `${PUBLIC}/v1/t/o/${SEND}`, width: '1', height: '1', alt: '', style: 'display:none' });
  });

  it('adds the pixel even to a fragment without <body>', () => {
    const { $ } = track('<p>fragment</p>');
    expect($('img[src$="/v1/t/o/' + SEND + '"]').length).toBe(1);
  });

  it('rewrites <area href> too', () => {
    const { hrefs, $ } = track('<body><map><area href="https://a.example/map"></map></body>');
    expect(hrefs).toEqual([]);
    expect($('area').attr('href')).toBe(`${PUBLIC}/v1/t/c/link-1`);
  });
});

describe('what the rewrite leaves alone', () => {
  it('keeps every byte of the template outside the rewritten hrefs and the injected pixel', () => {
    const html =
      '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd"><html dir="ltr"><head><meta content="text/html; charset=UTF-8" http-equiv="Content-Type"/></head><body style="margin:0"><table role="presentation"><tbody><tr><td><a href="https://a.example/x" style="color:#000">Go</a></td></tr></tbody></table></body></html>';
    const { out } = track(html);
    const expected = html
      .replace('href="https://a.example/x"', `href="${PUBLIC}/v1/t/c/link-1"`)
      .replace(
        '</body>',
        `<a href="${PUBLIC}/v1/t/c/${SEND}" style="display:none" aria-hidden="true" tabindex="-1"></a><img src="${PUBLIC}/v1/t/o/${SEND}" width="1" height="1" alt="" style="display:none"></body>`,
      );
    expect(out).toBe(expected);
  });

  it('reads single-quoted, unquoted and upper-case hrefs as a browser does, and only the first href of an element', () => {
    const { urls, out } = track(
      '<body><A HREF=\'https://a.example/q\'>1</A><a href=https://b.example/u>2</a><a href="https://c.example/first" href="https://d.example/second">3</a></body>',
    );
    expect(urls).toEqual(['https://a.example/q', 'https://b.example/u', 'https://c.example/first']);
    expect(out).toContain(`<A href="${PUBLIC}/v1/t/c/link-1">1</A>`);
    expect(out).toContain(`<a href="${PUBLIC}/v1/t/c/link-2">2</a>`);
    expect(out).toContain(`<a href="${PUBLIC}/v1/t/c/link-3" href="https://d.example/second">3</a>`);
  });

  it('rewrites a link after </body> and still puts the pixel before </body>', () => {
    const { out } = track('<html><body><p>x</p></body><a href="https://late.example/">late</a></html>');
    expect(out.indexOf(`/v1/t/o/${SEND}`)).toBeLessThan(out.indexOf('</body>'));
    expect(out).toContain(`<a href="${PUBLIC}/v1/t/c/link-1">late</a>`);
    expect(out.match(/\/v1\/t\/o\//g)).toHaveLength(1);
  });

  it('ignores hrefs in comments and in text', () => {
    const { urls } = track('<body><!-- <a href="https://hidden.example/">x</a> --><p>&lt;a href="https://text.example/"&gt;</p></body>');
    expect(urls).toEqual([]);
  });
});
