import type { SesAccountReader, SesIdentity } from '@waymark/email/ses-account';
import { fail, pass, readFailure, unlessUnreadable, warn, type DoctorCheck } from './doctor-check';
import type { DnsReader } from './dns-reader';
import { evaluateSpf, SPF_LOOKUP_LIMIT } from './spf';

/** The domain of EMAIL_FROM (`Waymark <noreply@example.com>` or a bare address), lower case. */
export function senderDomain(from: string): string | undefined {
  const address = /<([^<>]+)>\s*$/.exec(from)?.[1] ?? from;
  const at = address.lastIndexOf('@');
  const domain =
    at < 0
      ? ''
      : address
          .slice(at + 1)
          .trim()
          .toLowerCase();
  return domain === '' ? undefined : domain;
}

/** `news.example.com`, `example.com`: the domain and its parents with two labels or more. */
function selfAndParents(domain: string): string[] {
  const labels = domain.split('.');
  return labels.slice(0, -1).map((_, index) => labels.slice(index).join('.'));
}

/**
 * DMARC alignment (RFC 7489 §3.1): strict wants the same domain; relaxed the same organizational
 * domain, taken here as one being the other or a subdomain of it. Without the public suffix list
 * two sibling subdomains read as not aligned: a false alarm, never a false pass.
 */
export function aligned(domain: string, fromDomain: string, mode: 'r' | 's'): boolean {
  if (domain === fromDomain) return true;
  return mode === 'r' && (domain.endsWith(`.${fromDomain}`) || fromDomain.endsWith(`.${domain}`));
}

interface Dmarc {
  name: string;
  record: string;
  policy: string | undefined;
  adkim: 'r' | 's';
  aspf: 'r' | 's';
}

/** The DMARC record that governs the domain: its own `_dmarc`, else its parents' (RFC 7489 §6.6.3). */
async function findDmarc(dns: DnsReader, domain: string): Promise<Dmarc | undefined> {
  for (const candidate of selfAndParents(domain)) {
    const name = `_dmarc.${candidate}`;
    const record = (await dns.txt(name)).find((text) => /^v=DMARC1\s*(;|$)/i.test(text.trim()));
    if (record === undefined) continue;
    const tags = new Map(
      record
        .split(';')
        .map((tag) => tag.trim().split('='))
        .filter((pair): pair is [string, string] => pair.length === 2)
        .map(([key, value]) => [key.trim().toLowerCase(), value.trim().toLowerCase()]),
    );
    const mode = (tag: string) => (tags.get(tag) === 's' ? 's' : 'r');
    return { name, record, policy: tags.get('p'), adkim: mode('adkim'), aspf: mode('aspf') };
  }
  return undefined;
}

/** The SES identity that signs for the domain: the domain's own, else a parent's (SES signs a subdomain with it). */
async function findIdentity(ses: SesAccountReader, domain: string): Promise<SesIdentity | undefined> {
  for (const candidate of selfAndParents(domain)) {
    const identity = await ses.identity(candidate);
    if (identity !== undefined) return identity;
  }
  return undefined;
}

async function spfCheck(dns: DnsReader, domain: string): Promise<DoctorCheck> {
  const spf = await evaluateSpf(dns, domain);
  if (spf.record === undefined)
    return fail(
      'dns.spf',
      `${domain} publishes no SPF record`,
      `publish a TXT record on ${domain}: "v=spf1 include:amazonses.com ~all" (and on the custom MAIL FROM domain, as SES asks)`,
    );
  if (spf.lookups > SPF_LOOKUP_LIMIT)
    return fail(
      'dns.spf',
      `${domain}'s SPF record takes ${spf.lookups} DNS lookups, over the limit of ${SPF_LOOKUP_LIMIT}: receivers fail SPF (permerror)`,
      'remove the include: terms of services that no longer send for you, and replace a/mx/ptr terms and nested includes with ip4:/ip6: ranges, until the count is 10 or under',
    );
  if (spf.problems.length > 0)
    return fail(
      'dns.spf',
      `${domain}'s SPF record is broken: ${spf.problems.join('; ')}`,
      'publish exactly one v=spf1 record whose includes each resolve to one',
    );
  return pass('dns.spf', `${domain}: "${spf.record}" (${spf.lookups} of ${SPF_LOOKUP_LIMIT} lookups)`);
}

async function dkimCheck(dns: DnsReader, domain: string, identity: SesIdentity | undefined): Promise<DoctorCheck> {
  if (identity === undefined)
    return fail(
      'ses.dkim',
      `SES has no identity for ${domain} or a parent domain: it signs with amazonses.com, which does not align with ${domain}`,
      `create a domain identity for ${domain} in SES (Easy DKIM, RSA 2048) and publish the three CNAME records it gives`,
    );
  if (identity.dkim.status !== 'SUCCESS' || !identity.dkim.signingEnabled)
    return fail(
      'ses.dkim',
      `DKIM of the SES identity ${identity.name} is ${identity.dkim.status ?? 'not set up'}${identity.dkim.signingEnabled ? '' : ', signing off'}`,
      `publish the DKIM CNAME records SES lists for ${identity.name} (SES console → Identities → ${identity.name} → DKIM), and enable DKIM signing`,
    );
  if (identity.dkim.origin === undefined || identity.dkim.origin === 'AWS_SES') {
    const missing: string[] = [];
    for (const token of identity.dkim.tokens) {
      const name = `${token}._domainkey.${identity.name}`;
      const targets = await dns.cname(name);
      if (!targets.some((target) => target.startsWith(`${token.toLowerCase()}.dkim.`) && target.endsWith('.amazonses.com'))) missing.push(name);
    }
    if (missing.length > 0)
      return warn(
        'ses.dkim',
        `SES verified DKIM for ${identity.name}, but ${missing.join(', ')} no longer point to SES: SES stops signing when it sees them gone`,
        `publish again each CNAME ${'<token>'}._domainkey.${identity.name} → ${'<token>'}.dkim.amazonses.com`,
      );
  }
  return pass('ses.dkim', `SES signs for ${identity.name} with DKIM (verified)`);
}

function dmarcChecks(domain: string, dmarc: Dmarc | undefined, identity: SesIdentity | undefined): DoctorCheck[] {
  if (dmarc === undefined)
    return [
      fail(
        'dns.dmarc',
        `no DMARC record at _dmarc.${domain} or a parent domain: Gmail and Yahoo refuse bulk mail without one (since February 2024)`,
        `publish a TXT record at _dmarc.${domain}: "v=DMARC1; p=none; rua=mailto:dmarc-reports@${domain}", then tighten p to quarantine once the reports are clean`,
      ),
    ];
  const dmarcCheck =
    dmarc.policy === undefined
      ? fail('dns.dmarc', `${dmarc.name}: "${dmarc.record}" has no p= tag, so receivers ignore it`, `add p=none (or quarantine) to ${dmarc.name}`)
      : pass('dns.dmarc', `${dmarc.name}: p=${dmarc.policy}, adkim=${dmarc.adkim}, aspf=${dmarc.aspf}`);
  const dkimDomain = identity !== undefined && identity.dkim.status === 'SUCCESS' && identity.dkim.signingEnabled ? identity.name : undefined;
  const mailFrom = identity?.mailFrom?.status === 'SUCCESS' ? identity.mailFrom.domain : undefined;
  const byDkim = dkimDomain !== undefined && aligned(dkimDomain, domain, dmarc.adkim);
  const bySpf = mailFrom !== undefined && aligned(mailFrom, domain, dmarc.aspf);
  const alignment =
    byDkim || bySpf
      ? pass(
          'dns.alignment',
          `From ${domain} aligns with ${[byDkim ? `DKIM d=${dkimDomain}` : '', bySpf ? `MAIL FROM ${mailFrom}` : ''].filter(Boolean).join(' and ')}`,
        )
      : fail(
          'dns.alignment',
          `From ${domain} aligns with neither DKIM (${dkimDomain === undefined ? 'SES signs with amazonses.com' : `d=${dkimDomain}, adkim=${dmarc.adkim}`}) nor the MAIL FROM domain (${mailFrom ?? 'amazonses.com'}, aspf=${dmarc.aspf}): DMARC fails`,
          dkimDomain === undefined
            ? `verify ${domain} as an SES identity with Easy DKIM (see ses.dkim)`
            : `verify ${domain} itself as an SES identity (SES then signs d=${domain}), or set adkim=r in ${dmarc.name}`,
        );
  return [dmarcCheck, alignment];
}

/** SPF, DKIM, DMARC and alignment of EMAIL_FROM's domain. */
export async function domainChecks(deps: { dns: DnsReader; ses: SesAccountReader }, from: string): Promise<DoctorCheck[]> {
  const domain = senderDomain(from);
  if (domain === undefined) return [fail('dns.sender', `EMAIL_FROM "${from}" has no domain`, 'set EMAIL_FROM to "Name <address@your-domain>"')];
  // SES and DNS answer apart: read at once, so one slow resolver does not add up
  const [identity, dmarc, spf] = await Promise.all([
    findIdentity(deps.ses, domain).catch((error: unknown) => new Error(readFailure(error))),
    findDmarc(deps.dns, domain).catch((error: unknown) => new Error(readFailure(error))),
    unlessUnreadable('dns.spf', 'DNS', async () => [await spfCheck(deps.dns, domain)]),
  ]);
  return [
    ...spf,
    ...(identity instanceof Error
      ? [warn('ses.dkim', `could not read the SES identity of ${domain}: ${identity.message}`, 'allow ses:GetEmailIdentity to the role Waymark runs as')]
      : await unlessUnreadable('ses.dkim', 'DNS', async () => [await dkimCheck(deps.dns, domain, identity)])),
    ...(dmarc instanceof Error
      ? [warn('dns.dmarc', `could not read DNS: ${dmarc.message}`, 'make DNS reachable from this server (DNS_RESOLVER), then run the doctor again')]
      : identity instanceof Error
        ? [
            ...dmarcChecks(domain, dmarc, undefined).filter((check) => check.id === 'dns.dmarc'),
            warn('dns.alignment', `not known: the SES identity of ${domain} could not be read`, 'see ses.dkim'),
          ]
        : dmarcChecks(domain, dmarc, identity)),
  ];
}
