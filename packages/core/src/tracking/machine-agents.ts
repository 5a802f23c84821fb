/**
 * Who fetches tracked links and pixels without a person behind them (docs/email.md, "Machine
 * opens and clicks"). One list, one place: when a vendor changes its signature, this file and
 * its unit test change, nothing else.
 *
 * Sources (senders' published click-log audits, 2021-2025, and each crawler vendor's own page):
 * - Barracuda Link Protection fetches with "Barracuda" in the user agent.
 * - Proofpoint URL Defense: "Proofpoint" in the user agent.
 * - Cisco Secure Email (IronPort): "CiscoSecureEmail".
 * - Microsoft Safe Links time-of-click checks from Office apps: "ms-office" / "MSOffice". (Outlook
 *   itself loads images as "Microsoft Office/16.0 …": a person, so that name is not listed.)
 * - Search and preview crawlers that follow forwarded or published links, each as its vendor
 *   documents it: Google ("Google crawlers"), Bing ("Which crawlers does Bing use"), Apple
 *   ("About Applebot"), Slack ("Unfurling links"), Meta, X, LinkedIn, Discord, Telegram, Skype.
 * - Headless browsers and HTTP libraries (HeadlessChrome, python-requests, Go-http-client, curl,
 *   Wget, …): no person follows a link in an email with them.
 * Not listed, because their scans carry no signature of their own: Mimecast URL Protect and
 * Defender's delivery-time detonation (a plain desktop Chrome user agent). The HEAD, too_fast
 * and honeypot rules catch them instead.
 */
export const SCANNER_USER_AGENT_MARKERS: readonly string[] = [
  // corporate mail gateways' link checks
  'barracuda',
  'proofpoint',
  'ciscosecureemail',
  'ms-office',
  'msoffice',
  // crawlers and link previews
  'googlebot',
  'google-inspectiontool',
  'bingbot',
  'bingpreview',
  'applebot',
  'yandexbot',
  'duckduckbot',
  'baiduspider',
  'ahrefsbot',
  'semrushbot',
  'petalbot',
  'facebookexternalhit',
  'slackbot',
  'slack-imgproxy',
  'twitterbot',
  'linkedinbot',
  'discordbot',
  'telegrambot',
  'skypeuripreview',
  'whatsapp',
  // headless browsers and HTTP libraries
  'headlesschrome',
  'phantomjs',
  'python-requests',
  'python-urllib',
  'aiohttp',
  'go-http-client',
  'curl/',
  'wget/',
  'libwww-perl',
  'apache-httpclient',
  'java/',
  'scrapy',
];

/**
 * Apple Mail Privacy Protection loads every remote image of a message when it reaches the
 * mailbox, through Apple's relay, whether or not anyone reads it. Its image fetches carry the
 * bare user agent "Mozilla/5.0" (no platform, no engine: no browser or mail client sends that)
 * and leave from Apple's own network — 17.0.0.0/8 (ARIN, Apple Inc.) and Apple's IPv6 blocks —
 * as senders observed when MPP shipped (Apple's Private Relay network guidance lists the relay
 * hostnames mask.icloud.com / mask-h2.icloud.com; Word to the Wise, "Apple MPP reporting and
 * geolocation", 2021; SocketLabs, "Identifying Apple MPP opens"). Both must hold: a person on
 * Apple's corporate network sends a full user agent.
 */
export const APPLE_MPP_USER_AGENT = 'Mozilla/5.0';
export const APPLE_MPP_RANGES: readonly { address: string; prefix: number; family: 'ipv4' | 'ipv6' }[] = [
  { address: '17.0.0.0', prefix: 8, family: 'ipv4' },
  { address: '2620:149::', prefix: 32, family: 'ipv6' },
  { address: '2a01:b740::', prefix: 32, family: 'ipv6' },
];
