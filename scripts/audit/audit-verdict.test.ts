import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import allowlistFile from '../../audit-allowlist.json' with { type: 'json' };
import { auditVerdict, parseAllowlist } from './audit-verdict';

const fixture = (name: string): unknown => JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8'));
/** `npm audit --omit=dev --json` with one high advisory (ws, through engine.io) and one low one */
const withHigh = fixture('npm-audit-high.json');
/** what npm audit printed on this project's test machine, whose registry mirror does not serve the audit endpoint */
const unreachable = fixture('npm-audit-unreachable.json');
const accepted = { id: 'GHSA-3h5v-q93c-6h6q', package: 'ws', why: 'only the dev server of the studio opens a websocket; production never loads ws' };

describe('auditVerdict', () => {
  it('fails on a high advisory the allowlist does not name, once per advisory, ignoring low ones', () => {
    expect(auditVerdict(withHigh, [])).toEqual({
      kind: 'fail',
      findings: [
        {
          id: 'GHSA-3h5v-q93c-6h6q',
          package: 'ws',
          severity: 'high',
          title: 'ws affected by a DoS when handling a request with many HTTP headers',
          url: 'https://github.com/advisories/GHSA-3h5v-q93c-6h6q',
        },
      ],
      allowed: [],
    });
  });

  it('passes when the allowlist accepts it, and names allowlist entries nothing reports any more', () => {
    const stale = { id: 'GHSA-aaaa-bbbb-cccc', package: 'gone', why: 'fixed upstream since, kept here by mistake' };
    expect(auditVerdict(withHigh, [accepted, stale])).toMatchObject({ kind: 'pass', allowed: [{ id: accepted.id }], staleAllowlist: [stale] });
  });

  it('passes a clean answer', () => {
    expect(auditVerdict({ auditReportVersion: 2, vulnerabilities: {}, metadata: {} }, [])).toEqual({ kind: 'pass', allowed: [], staleAllowlist: [] });
  });

  it('says nothing was checked when the audit endpoint did not answer', () => {
    expect(auditVerdict(unreachable, [])).toEqual({ kind: 'unreachable', reason: expect.stringContaining('405 Method Not Allowed') });
  });
});

describe('parseAllowlist', () => {
  it('reads the repository file, and refuses an entry without an id, a package or a why', () => {
    expect(parseAllowlist(allowlistFile)).toEqual(allowlistFile.advisories);
    expect(parseAllowlist({ advisories: [accepted] })).toEqual([accepted]);
    expect(() => parseAllowlist({ advisories: [{ id: 'GHSA-3h5v-q93c-6h6q', package: 'ws' }] })).toThrow('needs an id (GHSA-…), a package and a why');
    expect(() => parseAllowlist({})).toThrow('expected {"advisories": [...]}');
  });
});
