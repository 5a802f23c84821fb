/** The mailbox providers the breaker and the doctor judge apart (docs/email.md, "Deliverability"). */
export type MailboxProvider = 'gmail' | 'yahoo' | 'microsoft' | 'apple' | 'other';

export const MAILBOX_PROVIDERS: readonly MailboxProvider[] = ['gmail', 'yahoo', 'microsoft', 'apple', 'other'];

/**
 * The one table of consumer domains per provider. A company domain hosted on Google Workspace or
 * Microsoft 365 counts as `other`: telling it apart needs an MX lookup per domain, and the bulk
 * sender rules these rates are held against are the consumer mailboxes'.
 */
const DOMAINS: Readonly<Record<string, MailboxProvider>> = Object.fromEntries(
  (
    [
      ['gmail', ['gmail.com', 'googlemail.com']],
      ['yahoo', ['yahoo.com', 'yahoo.co.uk', 'yahoo.fr', 'yahoo.de', 'yahoo.co.jp', 'ymail.com', 'rocketmail.com', 'aol.com', 'aim.com']],
      ['microsoft', ['outlook.com', 'hotmail.com', 'hotmail.co.uk', 'hotmail.fr', 'live.com', 'live.co.uk', 'msn.com', 'passport.com']],
      ['apple', ['icloud.com', 'me.com', 'mac.com']],
    ] as const
  ).flatMap(([provider, domains]) => domains.map((domain) => [domain, provider])),
);

/** The mailbox provider of a recipient address, by its domain (anything unknown: `other`). */
export function mailboxProviderOf(address: string): MailboxProvider {
  const at = address.lastIndexOf('@');
  const domain = address
    .slice(at + 1)
    .trim()
    .replace(/>$/, '')
    .toLowerCase();
  return DOMAINS[domain] ?? 'other';
}
