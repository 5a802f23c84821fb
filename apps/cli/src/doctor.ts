import type { CommandConfig } from '@waymark/core/config/config';
import type { Db } from '@waymark/core/db/database';
import { createDoctorDeps, doctorExitCode, runDoctor } from '@waymark/core/doctor/doctor';
import type { DoctorCheck } from '@waymark/core/doctor/doctor-check';
import type { PreferenceCategories } from '@waymark/email/preference-categories';

const MARK: Record<DoctorCheck['status'], string> = { pass: 'pass', warn: 'WARN', fail: 'FAIL' };

/** The checks as lines for a person: each status and detail, with the fix under each that is not a pass. */
export function formatChecks(checks: readonly DoctorCheck[]): string {
  const width = Math.max(...checks.map((check) => check.id.length));
  const lines = checks.flatMap((check) => [
    `${MARK[check.status]}  ${check.id.padEnd(width)}  ${check.detail}`,
    ...(check.fix === null ? [] : [`      ${' '.repeat(width)}  fix: ${check.fix}`]),
  ]);
  const count = (status: DoctorCheck['status']) => checks.filter((check) => check.status === status).length;
  return `${lines.join('\n')}\n\n${count('pass')} passed, ${count('warn')} warning(s), ${count('fail')} failed\n`;
}

/** `waymark doctor`: exit 1 when a check fails. */
export async function doctor(db: Db, config: CommandConfig, categories: PreferenceCategories, options: { json?: boolean }): Promise<number> {
  const checks = await runDoctor(createDoctorDeps(config.deliverability, { db, categories }), config.deliverability);
  process.stdout.write(options.json === true ? `${JSON.stringify({ checks }, null, 2)}\n` : formatChecks(checks));
  return doctorExitCode(checks);
}
