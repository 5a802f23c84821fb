import { describe, expect, it } from 'vitest';
import type { DnsReader } from './dns-reader';
import { evaluateSpf, spfLookupTerms } from './spf';

const zone = (records: Record<string, string[]>): DnsReader => ({ txt: async (name) => records[name] ?? [], cname: async () => [] });

describe('SPF lookups (RFC 7208 §4.6.4)', () => {
  it('counts include, a, mx, ptr, exists and redirect, with qualifiers; not ip4, ip6, all or exp', () => {
    expect(
      spfLookupTerms(
        'v=spf1 +a -mx:m.example.com/24 ~ptr ?exists:%{i}.x.example include:_spf.example.com ip4:1.2.3.4 ip6:::1 exp=e.example.com redirect=r.example.com -all',
      ),
    ).toEqual([
      { term: 'a', target: undefined },
      { term: 'mx', target: undefined },
      { term: 'ptr', target: undefined },
      { term: 'exists', target: undefined },
      { term: 'include', target: '_spf.example.com' },
      { term: 'redirect', target: 'r.example.com' },
    ]);
  });

  it('counts the terms of included and redirected records, and names a loop and an include without a record', async () => {
    const dns = zone({
      'example.com': ['v=spf1 include:a.example.com redirect=b.example.com'],
      'a.example.com': ['v=spf1 a mx include:example.com -all'],
      'b.example.com': ['v=spf1 include:none.example.com -all'],
    });
    expect(await evaluateSpf(dns, 'example.com')).toEqual({
      record: 'v=spf1 include:a.example.com redirect=b.example.com',
      lookups: 6,
      problems: ['include:example.com includes itself (example.com → a.example.com → example.com)', 'include:none.example.com has no SPF record'],
    });
  });

  it('two SPF records are a permanent error; none is none', async () => {
    expect((await evaluateSpf(zone({ 'x.test': ['v=spf1 -all', 'v=spf1 a -all'] }), 'x.test')).problems).toEqual([
      'x.test publishes 2 SPF records; receivers treat that as a permanent error',
    ]);
    expect(await evaluateSpf(zone({ 'x.test': ['v=spf10 nope', 'other'] }), 'x.test')).toEqual({ record: undefined, lookups: 0, problems: [] });
  });
});
