import { describe, expect, it } from 'vitest';
import { isScannerUserAgent, machineReasonOf } from './machine-hits';

const SAFARI_IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
const CHROME_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const OUTLOOK = 'Microsoft Office/16.0 (Windows NT 10.0; Microsoft Outlook 16.0.17328; Pro)';
const GMAIL_PROXY = 'Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)';

const hit = (overrides: Partial<{ method: string; userAgent: string | null; clientAddress: string | null }> = {}) => ({
  method: 'GET',
  userAgent: SAFARI_IPHONE,
  clientAddress: '203.0.113.7',
  ...overrides,
});

describe('machineReasonOf', () => {
  it('a person in a browser or a mail client is no machine', () => {
    for (const userAgent of [SAFARI_IPHONE, CHROME_WINDOWS, OUTLOOK, GMAIL_PROXY, null]) {
      expect(machineReasonOf('click', hit({ userAgent }))).toBeNull();
      expect(machineReasonOf('open', hit({ userAgent }))).toBeNull();
    }
  });

  it('a HEAD is a machine (head_request), whatever it claims to be', () => {
    expect(machineReasonOf('click', hit({ method: 'HEAD' }))).toBe('head_request');
    expect(machineReasonOf('open', hit({ method: 'head' }))).toBe('head_request');
  });

  it.each([
    'Mozilla/5.0 (compatible; Barracuda Sentinel (EE))',
    'Proofpoint URL Defense',
    'Mozilla/5.0 (compatible; CiscoSecureEmail)',
    'Microsoft Office Word 2014 ms-office',
    'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
    'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
    'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36',
    'python-requests/2.31.0',
    'Go-http-client/1.1',
    'curl/8.5.0',
  ])('a scanner or crawler user agent (%s) is scanner_user_agent', (userAgent) => {
    expect(isScannerUserAgent(userAgent)).toBe(true);
    expect(machineReasonOf('click', hit({ userAgent }))).toBe('scanner_user_agent');
  });

  it("Apple's proxy: the bare Mozilla/5.0 from Apple's network is an apple_mpp open", () => {
    expect(machineReasonOf('open', hit({ userAgent: 'Mozilla/5.0', clientAddress: '17.58.101.7' }))).toBe('apple_mpp');
    expect(machineReasonOf('open', hit({ userAgent: 'Mozilla/5.0', clientAddress: '::ffff:17.1.2.3' }))).toBe('apple_mpp');
    expect(machineReasonOf('open', hit({ userAgent: 'Mozilla/5.0', clientAddress: '2620:149:a:1::5' }))).toBe('apple_mpp');
  });

  it('either half alone is a person: a full user agent on Apple’s network, the bare one elsewhere; and a click is never apple_mpp', () => {
    expect(machineReasonOf('open', hit({ userAgent: SAFARI_IPHONE, clientAddress: '17.58.101.7' }))).toBeNull();
    expect(machineReasonOf('open', hit({ userAgent: 'Mozilla/5.0', clientAddress: '203.0.113.7' }))).toBeNull();
    expect(machineReasonOf('open', hit({ userAgent: 'Mozilla/5.0', clientAddress: null }))).toBeNull();
    expect(machineReasonOf('open', hit({ userAgent: 'Mozilla/5.0', clientAddress: 'not-an-address' }))).toBeNull();
    expect(machineReasonOf('click', hit({ userAgent: 'Mozilla/5.0', clientAddress: '17.58.101.7' }))).toBeNull();
  });

  it('HEAD wins over the user agent: one reason per hit, the most certain one', () => {
    expect(machineReasonOf('click', hit({ method: 'HEAD', userAgent: 'python-requests/2.31.0' }))).toBe('head_request');
  });
});
