import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DoctorCheck } from '@waymark/core/doctor/doctor-check';
import { startFixtureDns, type FixtureRecords } from '../../../test/fixture-dns';
import { runEntry } from '../../../test/run-entry';
import { openScratchDatabase, type ScratchDatabase } from '../../../test/scratch-database';
import { startSesDoctorFixture, type IdentityAnswer, type SesDoctorFixture } from '../../../test/ses-doctor-fixture';

const CLI = 'apps/cli/src/main.ts';
const SES_SPF = { txt: ['v=spf1 ip4:199.255.192.0/22 ip4:199.127.232.0/22 -all'] };

/** Easy DKIM: three CNAMEs to SES, as SES lists them for the identity. */
function dkimZone(identity: string, prefix: string): Record<string, FixtureRecords> {
  return Object.fromEntries([1, 2, 3].map((n) => [`${prefix}${n}._domainkey.${identity}`, { cname: `${prefix}${n}.dkim.amazonses.com` }]));
}
const verified = (prefix: string): IdentityAnswer => ({
  VerifiedForSendingStatus: true,
  DkimAttributes: { SigningEnabled: true, Status: 'SUCCESS', Tokens: [1, 2, 3].map((n) => `${prefix}${n}`), SigningAttributesOrigin: 'AWS_SES' },
});

// an SPF record whose includes, nested, take 12 lookups
const overLimit: Record<string, FixtureRecords> = {
  'overspf.test': { txt: ['v=spf1 include:one.overspf.test include:two.overspf.test include:amazonses.com ~all'] },
  'one.overspf.test': { txt: ['v=spf1 a mx include:three.overspf.test -all'] },
  'two.overspf.test': { txt: ['v=spf1 a mx ptr exists:%{i}.x.overspf.test -all'] },
  'three.overspf.test': { txt: ['v=spf1 a mx -all'] },
};

const zone: Record<string, FixtureRecords> = {
  'amazonses.com': SES_SPF,
  // clean: SPF, DKIM for the domain itself, DMARC
  'clean.test': { txt: ['v=spf1 include:amazonses.com ~all', 'google-site-verification=abc'] },
  '_dmarc.clean.test': { txt: ['v=DMARC1; p=quarantine; rua=mailto:dmarc@clean.test'] },
  ...dkimZone('clean.test', 'cleantok'),
  // no DMARC anywhere
  'nodmarc.test': { txt: ['v=spf1 include:amazonses.com ~all'] },
  ...dkimZone('nodmarc.test', 'nodmarctok'),
  // From news.strict.test, DKIM verified for strict.test only, and a strict DMARC: not aligned
  'news.strict.test': { txt: ['v=spf1 include:amazonses.com ~all'] },
  '_dmarc.news.strict.test': { txt: ['v=DMARC1; p=reject; adkim=s; aspf=s'] },
  ...dkimZone('strict.test', 'stricttok'),
  ...overLimit,
  '_dmarc.overspf.test': { txt: ['v=DMARC1; p=none'] },
  ...dkimZone('overspf.test', 'overtok'),
};

let dns: Awaited<ReturnType<typeof startFixtureDns>>;
let ses: SesDoctorFixture;
let database: ScratchDatabase;

beforeAll(async () => {
  [dns, ses, database] = await Promise.all([
    startFixtureDns(zone),
    startSesDoctorFixture({
      account: {
        EnforcementStatus: 'HEALTHY',
        ProductionAccessEnabled: true,
        SendingEnabled: true,
        SendQuota: { Max24HourSend: 50_000, MaxSendRate: 14, SentLast24Hours: 120 },
      },
      identities: {
        'clean.test': verified('cleantok'),
        'nodmarc.test': verified('nodmarctok'),
        'strict.test': verified('stricttok'),
        'overspf.test': verified('overtok'),
      },
    }),
    openScratchDatabase(),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([dns?.close(), ses?.close(), database?.release()]);
});

async function doctor(from: string, ...args: string[]) {
  const env = {
    DATABASE_URL: database.url,
    NODE_ENV: 'production',
    EMAIL_FROM: `Fixture <hello@${from}>`,
    API_PUBLIC_URL: 'https://waymark.example.com',
    SES_ENDPOINT: ses.url,
    EMAIL_PROVIDER_API_KEY: 'fixture:fixture',
    DNS_RESOLVER: dns.address,
  };
  const run = await runEntry(CLI, env, { args: ['doctor', ...args] });
  return { code: run.code, output: run.output };
}

async function doctorJson(from: string) {
  const { code, output } = await doctor(from, '--json');
  const { checks } = JSON.parse(output.slice(output.indexOf('{\n'))) as { checks: DoctorCheck[] };
  return { code, checks, check: (id: string) => checks.find((check) => check.id === id) };
}

describe('waymark doctor (a fixture DNS server, SES GetAccount from an emulator of the test)', () => {
  it('a clean zone passes every check and exits 0; the account fields come from GetAccount', async () => {
    const { code, output } = await doctor('clean.test');
    expect(output).toMatch(/pass {2}dns\.spf +clean\.test: "v=spf1 include:amazonses\.com ~all" \(1 of 10 lookups\)/);
    expect(output).toContain('From clean.test aligns with DKIM d=clean.test');
    expect(output).toContain('production access; 120 of 50000 sent in 24 h, 14/s');
    expect(output).toContain('sending enabled, enforcement status HEALTHY');
    expect(output).not.toMatch(/FAIL|WARN/);
    expect(code, output).toBe(0);
  });

  it('no DMARC record: dns.dmarc fails with its fix, and the command exits 1', async () => {
    const { code, check } = await doctorJson('nodmarc.test');
    expect(check('dns.dmarc')).toEqual({
      id: 'dns.dmarc',
      status: 'fail',
      detail: expect.stringContaining('no DMARC record at _dmarc.nodmarc.test'),
      fix: expect.stringContaining('publish a TXT record at _dmarc.nodmarc.test: "v=DMARC1; p=none;'),
    });
    expect(check('dns.spf')?.status).toBe('pass');
    expect(code).toBe(1);
  });

  it('DKIM not aligned (verified for the parent only, adkim=s, no custom MAIL FROM): dns.alignment fails, exit 1', async () => {
    const { code, check } = await doctorJson('news.strict.test');
    expect(check('ses.dkim')).toMatchObject({ status: 'pass', detail: 'SES signs for strict.test with DKIM (verified)' });
    expect(check('dns.alignment')).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining(
        'From news.strict.test aligns with neither DKIM (d=strict.test, adkim=s) nor the MAIL FROM domain (amazonses.com, aspf=s)',
      ),
      fix: 'verify news.strict.test itself as an SES identity (SES then signs d=news.strict.test), or set adkim=r in _dmarc.news.strict.test',
    });
    expect(code).toBe(1);
  });

  it('SPF over 10 lookups: dns.spf fails with its count and fix, exit 1', async () => {
    const { code, check } = await doctorJson('overspf.test');
    expect(check('dns.spf')).toMatchObject({
      status: 'fail',
      detail: "overspf.test's SPF record takes 12 DNS lookups, over the limit of 10: receivers fail SPF (permerror)",
      fix: expect.stringContaining('until the count is 10 or under'),
    });
    expect(code).toBe(1);
  });
});
