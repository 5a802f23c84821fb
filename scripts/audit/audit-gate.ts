/**
 * `npm test`'s dependency gate (docs/security.md, "Dependencies"): `npm audit --omit=dev` must
 * report no high or critical advisory in a production dependency that audit-allowlist.json does
 * not accept with a reason.
 *
 *   npx tsx scripts/audit/audit-gate.ts [--require-audit]
 *
 * When the registry's audit endpoint cannot be asked (offline, or a mirror that does not serve
 * it), nothing was checked: with --require-audit (scripts/test.sh passes it when WAYMARK_REQUIRE_AUDIT is set) that
 * fails the run; without it the gate says so loudly and lets the run go on.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { auditVerdict, parseAllowlist, type Finding } from './audit-verdict';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function npmAudit(): Promise<string> {
  return new Promise((resolve, reject) => {
    // npm audit exits non-zero when it finds anything: the JSON is read either way
    execFile('npm', ['audit', '--omit=dev', '--json'], { cwd: repoRoot, maxBuffer: 64 * 1024 * 1024, timeout: 120_000 }, (error, stdout) => {
      if (stdout.trim() !== '') resolve(stdout);
      else reject(error ?? new Error('npm audit printed nothing'));
    });
  });
}

const line = (finding: Finding) => `  ${finding.severity.padEnd(8)} ${finding.package}: ${finding.title} (${finding.id}, ${finding.url})`;

async function main(): Promise<number> {
  const requireAudit = process.argv.includes('--require-audit');
  const allowlist = parseAllowlist(JSON.parse(await readFile(path.join(repoRoot, 'audit-allowlist.json'), 'utf8')));
  let report: unknown;
  try {
    report = JSON.parse(await npmAudit());
  } catch (error) {
    report = { message: (error as Error).message };
  }
  const verdict = auditVerdict(report, allowlist);
  switch (verdict.kind) {
    case 'unreachable': {
      const what = `[audit] the npm audit endpoint could not be asked (${verdict.reason}): production dependencies were NOT checked for advisories`;
      if (requireAudit) {
        console.error(`${what}; failing (--require-audit). Run it where the registry's audit endpoint answers.`);
        return 1;
      }
      console.warn(
        `${what}. WAYMARK_REQUIRE_AUDIT=true fails on this (--require-audit); run \`npm audit --omit=dev --audit-level=high\` where the registry answers.`,
      );
      return 0;
    }
    case 'fail':
      console.error(`[audit] high or critical advisories in production dependencies, not in audit-allowlist.json:\n${verdict.findings.map(line).join('\n')}`);
      console.error('[audit] upgrade the dependency (npm audit fix --omit=dev), or accept the advisory in audit-allowlist.json with why.');
      return 1;
    case 'pass':
      for (const finding of verdict.allowed) console.log(`[audit] accepted by audit-allowlist.json:${line(finding).slice(1)}`);
      for (const entry of verdict.staleAllowlist)
        console.warn(`[audit] audit-allowlist.json accepts ${entry.id} (${entry.package}), which npm audit no longer reports: remove it`);
      console.log('[audit] no high or critical advisory in production dependencies');
      return 0;
    default: {
      const exhaustive: never = verdict;
      return exhaustive;
    }
  }
}

process.exitCode = await main();
