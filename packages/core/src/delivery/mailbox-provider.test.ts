import { describe, expect, it } from 'vitest';
import { MAILBOX_PROVIDER_DOMAINS, mailboxProviderOf } from './mailbox-provider';

describe('mailboxProviderOf', () => {
  it('maps a recipient address or domain to its provider, case-insensitively', () => {
    expect(mailboxProviderOf('Ada@GMail.com')).toBe('gmail');
    expect(mailboxProviderOf('googlemail.com')).toBe('gmail');
    expect(mailboxProviderOf('x@aol.com')).toBe('yahoo');
    expect(mailboxProviderOf('x@hotmail.co.uk')).toBe('microsoft');
    expect(mailboxProviderOf('x@icloud.com')).toBe('apple');
  });

  it('puts every other domain, a subdomain of a listed one included, in other', () => {
    expect(mailboxProviderOf('ops@example.com')).toBe('other');
    expect(mailboxProviderOf('x@mail.gmail.com')).toBe('other');
    expect(mailboxProviderOf('success+1@simulator.amazonses.com')).toBe('other');
  });

  it('lists each domain under one provider only', () => {
    const domains = Object.values(MAILBOX_PROVIDER_DOMAINS).flat();
    expect(new Set(domains).size).toBe(domains.length);
  });
});
