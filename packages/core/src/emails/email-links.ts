import type { EmailLinks } from '@waymark/email/email-template';
import type { EmailTokenSigner } from '@waymark/email/unsubscribe-token';
import { preferencesPageUrl, unsubscribePageUrl } from '../preferences/page-urls';

export interface Recipient {
  /** contact externalId; empty for an address-only recipient */
  externalId: string;
  email: string;
}

/**
 * The footer links and the List-Unsubscribe target of one email, and the tokens in them (what
 * differs per recipient: render-plan.ts). Unsubscribing from an email turns off its category (the
 * preference center offers the global switch).
 */
export async function buildEmailLinks(
  tokens: EmailTokenSigner,
  publicUrl: string,
  recipient: Recipient,
  category: string,
): Promise<{ links: EmailLinks; tokens: string[] }> {
  const [unsubscribe, preferences] = await Promise.all([
    tokens.sign({ ...recipient, action: 'unsubscribe', category }),
    tokens.sign({ ...recipient, action: 'unsubscribe' }),
  ]);
  return {
    links: { unsubscribeUrl: unsubscribePageUrl(publicUrl, unsubscribe), preferencesUrl: preferencesPageUrl(publicUrl, preferences) },
    tokens: [unsubscribe, preferences],
  };
}

/** RFC 2369 + RFC 8058 headers: mail clients offer a one-click unsubscribe that POSTs to the URL. */
export function listUnsubscribeHeaders(links: EmailLinks): { name: string; value: string }[] {
  return [
    { name: 'List-Unsubscribe', value: `<${links.unsubscribeUrl}>` },
    { name: 'List-Unsubscribe-Post', value: 'List-Unsubscribe=One-Click' },
  ];
}
