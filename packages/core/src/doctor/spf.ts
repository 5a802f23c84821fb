import type { DnsReader } from './dns-reader';

/** RFC 7208 §4.6.4: evaluating a record may take at most 10 DNS-querying terms, or SPF fails (permerror). */
export const SPF_LOOKUP_LIMIT = 10;

/** The terms that cost a DNS query (§4.6.4); `all`, `ip4`, `ip6` and `exp` do not. */
const LOOKUP_TERMS = new Set(['include', 'a', 'mx', 'ptr', 'exists', 'redirect']);

export interface SpfEvaluation {
  /** the domain's own SPF record; undefined when it publishes none */
  record: string | undefined;
  /** the DNS-querying terms of the record and of every include and redirect, recursively */
  lookups: number;
  /** what makes the record fail on its own (two records, an include with none, a loop) */
  problems: string[];
}

/** The `v=spf1` records among a name's TXT records (§4.5: exactly one may be published). */
export function spfRecords(txt: readonly string[]): string[] {
  return txt.filter((record) => /^v=spf1(\s|$)/i.test(record.trim()));
}

/** The record's terms that cost a lookup, with the domain an `include` or `redirect` points to. */
export function spfLookupTerms(record: string): { term: string; target: string | undefined }[] {
  return record
    .trim()
    .split(/\s+/)
    .slice(1)
    .flatMap((raw) => {
      // a qualifier (+ - ~ ?) before a mechanism; `redirect=` is a modifier, the others take `:domain`
      const term = raw.replace(/^[+\-~?]/, '');
      const match = /^([a-z]+)(?:[:=](.*?))?(?:\/.*)?$/i.exec(term);
      const name = match?.[1]?.toLowerCase();
      if (name === undefined || !LOOKUP_TERMS.has(name)) return [];
      return [{ term: name, target: name === 'include' || name === 'redirect' ? match?.[2]?.toLowerCase() : undefined }];
    });
}

/**
 * Reads the domain's SPF record and counts its lookups the way a receiver does: every
 * include/a/mx/ptr/exists/redirect term, and the terms of the records that include and redirect
 * reach, recursively. It stops descending once past the limit: the verdict is already known.
 */
export async function evaluateSpf(dns: DnsReader, domain: string): Promise<SpfEvaluation> {
  const own = spfRecords(await dns.txt(domain));
  if (own.length === 0) return { record: undefined, lookups: 0, problems: [] };
  const problems: string[] = own.length > 1 ? [`${domain} publishes ${own.length} SPF records; receivers treat that as a permanent error`] : [];
  let lookups = 0;
  // a receiver counts a domain included twice twice; only a loop (a domain within its own includes) is cut
  const visit = async (record: string, path: readonly string[]): Promise<void> => {
    for (const { term, target } of spfLookupTerms(record)) {
      lookups += 1;
      if (target === undefined || lookups > SPF_LOOKUP_LIMIT) continue;
      if (path.includes(target)) {
        problems.push(`${term}:${target} includes itself (${[...path, target].join(' → ')})`);
        continue;
      }
      const reached = spfRecords(await dns.txt(target));
      if (reached.length !== 1) {
        problems.push(`${term}:${target} has ${reached.length === 0 ? 'no SPF record' : `${reached.length} SPF records`}`);
        continue;
      }
      await visit(reached[0]!, [...path, target]);
    }
  };
  await visit(own[0]!, [domain]);
  return { record: own[0], lookups, problems };
}
