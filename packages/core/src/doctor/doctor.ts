import type { PreferenceCategories } from '@waymark/email/preference-categories';
import { createSesAccountReader, type SesAccountReader } from '@waymark/email/ses-account';
import type { DoctorSettings } from '../config/config';
import type { Db } from '../db/database';
import { sesAccountChecks } from './account-checks';
import { createDnsReader, type DnsReader } from './dns-reader';
import type { DoctorCheck } from './doctor-check';
import { domainChecks } from './domain-checks';
import { rateChecks } from './recent-rates';
import { sendingChecks } from './sending-checks';

export interface DoctorDeps {
  db: Db;
  categories: PreferenceCategories;
  dns: DnsReader;
  ses: SesAccountReader;
}

/** The doctor's readers from the settings: DNS through DNS_RESOLVER, SES through the send path's client. */
export function createDoctorDeps(settings: DoctorSettings, deps: { db: Db; categories: PreferenceCategories }): DoctorDeps {
  return { ...deps, dns: createDnsReader(settings.dnsResolver), ses: createSesAccountReader(settings.ses) };
}

/**
 * The deliverability doctor (docs/email.md, "Deliverability"): the one list of checks that
 * `waymark doctor`, GET /v1/admin/deliverability and the studio's Settings → Deliverability show.
 * The four parts read different systems, so they run at once; each part reports what it could
 * not read as a warning of its own rather than failing the others.
 */
export async function runDoctor(deps: DoctorDeps, settings: DoctorSettings, now: Date = new Date()): Promise<DoctorCheck[]> {
  const parts = await Promise.all([
    domainChecks(deps, settings.emailFrom),
    sesAccountChecks(deps.ses),
    sendingChecks(deps, settings, now),
    rateChecks(deps.db, deps.categories, now),
  ]);
  return parts.flat();
}

/** 1 when a check fails, else 0 (warnings do not fail the command). */
export function doctorExitCode(checks: readonly DoctorCheck[]): number {
  return checks.some((check) => check.status === 'fail') ? 1 : 0;
}
