import { Resolver } from 'node:dns/promises';

/** The DNS reads of the doctor: TXT records (each one's strings joined) and CNAME targets, lower case. */
export interface DnsReader {
  /** the TXT records of `name`; empty when it has none or does not exist */
  txt(name: string): Promise<string[]>;
  /** the CNAME targets of `name`; empty when it has none or does not exist */
  cname(name: string): Promise<string[]>;
}

/** No such name or no record of that type: an answer ("none"), not a failure of the lookup. */
const ABSENT = new Set(['ENOTFOUND', 'ENODATA']);

/**
 * One resolver for every read: `DNS_RESOLVER` (host:port) when set, so a deployment can ask the
 * resolver its mail providers see, and tests answer from a fixture server; the system's otherwise.
 * A timeout or SERVFAIL is thrown: the check that asked reports it as not known, never as absent.
 */
export function createDnsReader(server: string | undefined): DnsReader {
  const resolver = new Resolver({ timeout: 3_000, tries: 2 });
  if (server !== undefined) resolver.setServers([server]);
  const absentAsEmpty = async <T>(lookup: () => Promise<T[]>): Promise<T[]> => {
    try {
      return await lookup();
    } catch (error) {
      if (ABSENT.has((error as NodeJS.ErrnoException).code ?? '')) return [];
      throw error;
    }
  };
  return {
    txt: async (name) => (await absentAsEmpty(() => resolver.resolveTxt(name))).map((chunks) => chunks.join('')),
    cname: async (name) => (await absentAsEmpty(() => resolver.resolveCname(name))).map((target) => target.toLowerCase().replace(/\.$/, '')),
  };
}
