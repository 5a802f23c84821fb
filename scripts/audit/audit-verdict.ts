/**
 * The decision of the dependency gate (scripts/audit/audit-gate.ts, run by `npm test`): a high or
 * critical advisory in a production dependency fails the run unless audit-allowlist.json names it
 * with a reason. Kept apart from the command so it is tested over recorded `npm audit --json`.
 */

export interface AllowedAdvisory {
  /** the advisory's GHSA id, as `npm audit` links it (https://github.com/advisories/<id>) */
  id: string;
  package: string;
  /** why it is accepted: why it cannot be reached here, or what waits on a fix */
  why: string;
}

export interface Finding {
  id: string;
  package: string;
  severity: 'high' | 'critical';
  title: string;
  url: string;
}

export type Verdict =
  | { kind: 'pass'; allowed: Finding[]; staleAllowlist: AllowedAdvisory[] }
  | { kind: 'fail'; findings: Finding[]; allowed: Finding[] }
  | { kind: 'unreachable'; reason: string };

const GATED = new Set(['high', 'critical']);

interface AuditVia {
  source?: number;
  name?: string;
  title?: string;
  url?: string;
  severity?: string;
}

/** `https://github.com/advisories/GHSA-xxxx-xxxx-xxxx` → `GHSA-xxxx-xxxx-xxxx` */
function advisoryId(via: AuditVia): string {
  const match = /GHSA-[\w-]+/i.exec(via.url ?? '');
  return match ? match[0] : String(via.source ?? via.title ?? 'unknown');
}

/**
 * What the gate does with one `npm audit --omit=dev --json` answer. An answer without a
 * `vulnerabilities` map (the audit endpoint refused or could not be reached) is `unreachable`:
 * nothing was checked, and the caller decides whether that fails the run.
 */
export function auditVerdict(report: unknown, allowlist: readonly AllowedAdvisory[]): Verdict {
  const vulnerabilities = (report as { vulnerabilities?: Record<string, { via?: unknown[] }> } | null)?.vulnerabilities;
  if (vulnerabilities === undefined || vulnerabilities === null || typeof vulnerabilities !== 'object') {
    const message = (report as { message?: string; error?: { summary?: string } } | null)?.message ?? 'no vulnerabilities section in the answer';
    return { kind: 'unreachable', reason: message };
  }
  const findings = new Map<string, Finding>();
  for (const [name, entry] of Object.entries(vulnerabilities)) {
    for (const via of entry.via ?? []) {
      // a string names another vulnerable package; its own entry carries the advisory
      if (typeof via !== 'object' || via === null) continue;
      const advisory = via as AuditVia;
      if (!GATED.has(advisory.severity ?? '')) continue;
      const id = advisoryId(advisory);
      const packageName = advisory.name ?? name;
      findings.set(`${id} ${packageName}`, {
        id,
        package: packageName,
        severity: advisory.severity as Finding['severity'],
        title: advisory.title ?? '',
        url: advisory.url ?? '',
      });
    }
  }
  const isAllowed = (finding: Finding) => allowlist.some((entry) => entry.id.toLowerCase() === finding.id.toLowerCase());
  const all = [...findings.values()];
  const allowed = all.filter(isAllowed);
  const blocking = all.filter((finding) => !isAllowed(finding));
  if (blocking.length > 0) return { kind: 'fail', findings: blocking, allowed };
  const staleAllowlist = allowlist.filter((entry) => !all.some((finding) => finding.id.toLowerCase() === entry.id.toLowerCase()));
  return { kind: 'pass', allowed, staleAllowlist };
}

/** A well-formed allowlist: every entry names its advisory, its package and why (the file is reviewed like code). */
export function parseAllowlist(json: unknown): AllowedAdvisory[] {
  const advisories = (json as { advisories?: unknown } | null)?.advisories;
  if (!Array.isArray(advisories)) throw new Error('audit-allowlist.json: expected {"advisories": [...]}');
  return advisories.map((entry: unknown, index) => {
    const { id, package: packageName, why } = (entry ?? {}) as Record<string, unknown>;
    if (typeof id !== 'string' || !/^GHSA-/i.test(id) || typeof packageName !== 'string' || typeof why !== 'string' || why.trim().length < 10) {
      throw new Error(`audit-allowlist.json: advisory ${index + 1} needs an id (GHSA-…), a package and a why of a sentence`);
    }
    return { id, package: packageName, why };
  });
}
