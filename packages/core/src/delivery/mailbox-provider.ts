/**
 * The mailbox providers whose own limits and reputation a sender watches apart (Gmail's and
 * Yahoo's 0.3 % spam rate, Outlook.com's authentication rules), by recipient domain: the one table
 * the deliverability doctor's rates and the reputation breaker both group by (docs/email.md,
 * "Deliverability"). Everything not listed is `other`: a company's own domain may well be hosted
 * by Google or Microsoft, but only its MX records would say so, and reading them per recipient is
 * not worth a DNS lookup per send.
 */
export const MAILBOX_PROVIDERS = ['gmail', 'yahoo', 'microsoft', 'apple', 'other'] as const;
export type MailboxProvider = (typeof MAILBOX_PROVIDERS)[number];

/** A provider name read back from storage (a column is text): an unknown one counts as `other`. */
export function asMailboxProvider(name: string): MailboxProvider {
  return (MAILBOX_PROVIDERS as readonly string[]).includes(name) ? (name as MailboxProvider) : 'other';
}

/** The consumer domains of each provider (lower case). Yahoo runs AOL's mail since 2017. */
export const MAILBOX_PROVIDER_DOMAINS: Readonly<Record<Exclude<MailboxProvider, 'other'>, readonly string[]>> = {
  gmail: ['gmail.com', 'googlemail.com'],
  yahoo: [
    'yahoo.com',
    'yahoo.co.uk',
    'yahoo.fr',
    'yahoo.de',
    'yahoo.es',
    'yahoo.it',
    'yahoo.ca',
    'yahoo.com.br',
    'yahoo.co.jp',
    'yahoo.co.in',
    'ymail.com',
    'rocketmail.com',
    'aol.com',
    'aim.com',
  ],
  microsoft: ['outlook.com', 'hotmail.com', 'live.com', 'msn.com', 'hotmail.co.uk', 'hotmail.fr', 'outlook.fr', 'live.co.uk', 'live.fr', 'passport.com'],
  apple: ['icloud.com', 'me.com', 'mac.com'],
};

const byDomain = new Map<string, MailboxProvider>(
  Object.entries(MAILBOX_PROVIDER_DOMAINS).flatMap(([provider, domains]) => domains.map((domain) => [domain, provider as MailboxProvider] as const)),
);

/** The provider of a recipient domain (`gmail.com`) or address (`ada@gmail.com`), case and spaces ignored. */
export function mailboxProviderOf(addressOrDomain: string): MailboxProvider {
  const domain = addressOrDomain
    .slice(addressOrDomain.lastIndexOf('@') + 1)
    .trim()
    // a header-style address (`Ada <ada@gmail.com>`) ends in its bracket
    .replace(/>$/, '')
    .toLowerCase();
  return byDomain.get(domain) ?? 'other';
}
