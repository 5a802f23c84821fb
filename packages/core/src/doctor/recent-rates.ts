import { requiredCategoryKeys } from '../delivery/required-categories';
import { sql } from 'kysely';
import type { PreferenceCategories } from '@waymark/email/preference-categories';
import type { Db } from '../db/database';
import { MAILBOX_PROVIDER_DOMAINS, MAILBOX_PROVIDERS, type MailboxProvider } from '../delivery/mailbox-provider';
import { fail, pass, warn, type DoctorCheck } from './doctor-check';

/**
 * SES reviews an account at a 5 % bounce or 0.1 % complaint rate and may pause its sending at
 * 10 % / 0.5 % (Amazon SES Developer Guide, "Sending review process FAQs"); Gmail and Yahoo's
 * bulk sender rules (February 2024) want spam reports under 0.3 %, and Google advises under 0.1 %.
 */
export const SES_REVIEW = { bounceRate: 0.05, complaintRate: 0.001 } as const;
export const SES_PAUSE = { bounceRate: 0.1, complaintRate: 0.005 } as const;
export const PROVIDER_SPAM_LIMIT = 0.003;

const WINDOW_MS = 86_400_000;

export interface RateRow {
  group: 'marketing' | 'transactional';
  provider: MailboxProvider;
  sends: number;
  bounces: number;
  complaints: number;
}

/** The recipient domain's provider, in SQL, from the one table (delivery/mailbox-provider.ts). */
function providerOf(address: ReturnType<typeof sql.ref>) {
  const domain = sql`lower(split_part(${address}, '@', 2))`;
  const whens = Object.entries(MAILBOX_PROVIDER_DOMAINS).map(
    ([provider, domains]) => sql`when ${domain} in (${sql.join(domains.map((item) => sql.lit(item)))}) then ${sql.lit(provider)}`,
  );
  return sql<MailboxProvider>`case ${sql.join(whens, sql` `)} else 'other' end`;
}

/** Sends, bounces and complaints of the last 24 h per group (marketing: categories not required) and provider. */
export async function recentRates(db: Db, categories: PreferenceCategories, now: Date): Promise<RateRow[]> {
  const required = requiredCategoryKeys(categories);
  // the send's own mark, or SES's event kept for it (email_provider_notifications, 0156)
  const drew = (kind: 'bounced' | 'complained') =>
    sql<number>`count(*) filter (where ${sql.ref(`s.${kind}_at`)} is not null or exists (
      select 1 from email_provider_notifications n where n.email_send_id = s.id and n.notification_type = ${kind}))`;
  const rows = await db
    .selectFrom('emailSends as s')
    .select([
      (required.length === 0
        ? sql<string>`'marketing'`
        : sql<string>`case when s.category in (${sql.join(required)}) then 'transactional' else 'marketing' end`
      ).as('group'),
      providerOf(sql.ref('s.to_email')).as('provider'),
      sql<number>`count(*)`.as('sends'),
      drew('bounced').as('bounces'),
      drew('complained').as('complaints'),
    ])
    .where('s.sentAt', '>=', new Date(now.getTime() - WINDOW_MS))
    .groupBy(['group', 'provider'])
    .execute();
  return rows.map((row) => ({
    group: row.group as RateRow['group'],
    provider: row.provider,
    sends: Number(row.sends),
    bounces: Number(row.bounces),
    complaints: Number(row.complaints),
  }));
}

const percent = (rate: number) => `${(rate * 100).toFixed(rate < 0.01 ? 2 : 1)} %`;

function rateCheck(id: string, label: string, totals: Omit<RateRow, 'group' | 'provider'>, spamLimit: number | undefined): DoctorCheck {
  const bounceRate = totals.bounces / totals.sends;
  const complaintRate = totals.complaints / totals.sends;
  const detail = `${label}: ${totals.sends} sent in 24 h, ${totals.bounces} bounced (${percent(bounceRate)}), ${totals.complaints} complained (${percent(complaintRate)})`;
  const overPause = bounceRate >= SES_PAUSE.bounceRate || complaintRate >= SES_PAUSE.complaintRate;
  const overSpam = spamLimit !== undefined && complaintRate >= spamLimit;
  if (overPause || overSpam)
    return fail(
      id,
      `${detail}: over ${overPause ? `SES's pause threshold (${percent(SES_PAUSE.bounceRate)} bounces / ${percent(SES_PAUSE.complaintRate)} complaints)` : `the mailbox providers' spam limit (${percent(spamLimit!)})`}`,
      'stop sending marketing mail to this audience, remove addresses that bounced or never engaged, and check how they were collected (consent)',
    );
  if (bounceRate >= SES_REVIEW.bounceRate || complaintRate >= SES_REVIEW.complaintRate)
    return warn(
      id,
      `${detail}: over SES's review threshold (${percent(SES_REVIEW.bounceRate)} bounces / ${percent(SES_REVIEW.complaintRate)} complaints)`,
      'send less marketing mail to this audience until the rates fall, and to the people who engaged recently first',
    );
  return pass(id, detail);
}

/** One check per category group and one per mailbox provider, for the last 24 h. */
export async function rateChecks(db: Db, categories: PreferenceCategories, now: Date): Promise<DoctorCheck[]> {
  const rows = await recentRates(db, categories, now);
  if (rows.length === 0) return [pass('rates', 'nothing sent in the last 24 h')];
  const sum = (of: RateRow[]) =>
    of.reduce((total, row) => ({ sends: total.sends + row.sends, bounces: total.bounces + row.bounces, complaints: total.complaints + row.complaints }), {
      sends: 0,
      bounces: 0,
      complaints: 0,
    });
  const groups = (['marketing', 'transactional'] as const).flatMap((group) => {
    const of = rows.filter((row) => row.group === group);
    return of.length === 0 ? [] : [rateCheck(`rates.group.${group}`, `${group} mail`, sum(of), undefined)];
  });
  const providers = MAILBOX_PROVIDERS.flatMap((provider) => {
    const of = rows.filter((row) => row.provider === provider);
    return of.length === 0
      ? []
      : [rateCheck(`rates.provider.${provider}`, `mail to ${provider}`, sum(of), provider === 'other' ? undefined : PROVIDER_SPAM_LIMIT)];
  });
  return [...groups, ...providers];
}
