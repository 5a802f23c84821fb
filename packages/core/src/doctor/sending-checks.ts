import { requiredCategoryKeys } from '../delivery/required-categories';
import { sql } from 'kysely';
import type { PreferenceCategories } from '@waymark/email/preference-categories';
import type { DoctorSettings } from '../config/config';
import type { Db } from '../db/database';
import { listUnsubscribeHeaders } from '../emails/email-links';
import { preferencesPageUrl, unsubscribePageUrl } from '../preferences/page-urls';
import { fail, pass, warn, type DoctorCheck } from './doctor-check';

const DAY_MS = 86_400_000;

/**
 * List-Unsubscribe and List-Unsubscribe-Post on every email of a category that is not required,
 * built by the send path's own function (emails/email-links.ts), so the check cannot pass while
 * the sends lack them. Gmail and Yahoo want one-click (RFC 8058) on bulk mail, over HTTPS.
 */
function listUnsubscribeCheck(settings: Pick<DoctorSettings, 'apiPublicUrl'>, categories: PreferenceCategories): DoctorCheck {
  const marketing = categories
    .all()
    .filter((category) => category.required !== true)
    .map((category) => category.key);
  const headers = listUnsubscribeHeaders({
    unsubscribeUrl: unsubscribePageUrl(settings.apiPublicUrl, 't'),
    preferencesUrl: preferencesPageUrl(settings.apiPublicUrl, 't'),
  });
  const names = headers.map((header) => header.name);
  const target = /^<([^>]+)>$/.exec(headers.find((header) => header.name === 'List-Unsubscribe')?.value ?? '')?.[1] ?? '';
  const oneClick = headers.some((header) => header.name === 'List-Unsubscribe-Post' && header.value === 'List-Unsubscribe=One-Click');
  if (!names.includes('List-Unsubscribe') || !oneClick)
    return fail('sending.list-unsubscribe', `emails carry ${names.join(', ') || 'no unsubscribe headers'}`, 'restore listUnsubscribeHeaders in the send path');
  if (!target.startsWith('https://'))
    return warn(
      'sending.list-unsubscribe',
      `List-Unsubscribe and List-Unsubscribe-Post on every email of ${marketing.join(', ')}, but the one-click URL is ${new URL(target).origin}, not HTTPS: Gmail offers one-click only over HTTPS`,
      'serve API_PUBLIC_URL over HTTPS',
    );
  return pass('sending.list-unsubscribe', `List-Unsubscribe (HTTPS) and List-Unsubscribe-Post: One-Click on every email of ${marketing.join(', ')}`);
}

function publicUrlCheck(settings: Pick<DoctorSettings, 'apiPublicUrl' | 'isProduction'>): DoctorCheck {
  if (settings.apiPublicUrl.startsWith('https://')) return pass('sending.public-url', `API_PUBLIC_URL is ${settings.apiPublicUrl}`);
  const detail = `API_PUBLIC_URL is ${settings.apiPublicUrl}: unsubscribe, preference and tracking links are not HTTPS`;
  const fix = 'set API_PUBLIC_URL to the https:// address the API is served at (a TLS-terminating proxy in front of it)';
  return settings.isProduction ? fail('sending.public-url', detail, fix) : warn('sending.public-url', `${detail} (fine outside production)`, fix);
}

/**
 * Unsubscribes applied at once: no email of the last 24 h went to an address after it left the
 * email's category (or everything), or after it was suppressed. A preference row not changed
 * since before the send says what held at the send; a required category is stopped by
 * suppression only (preferences/send-gate.ts).
 */
async function unsubscribesAppliedCheck(db: Db, categories: PreferenceCategories, now: Date): Promise<DoctorCheck> {
  const required = requiredCategoryKeys(categories);
  const since = new Date(now.getTime() - DAY_MS);
  const row = await db
    .selectFrom('emailSends as s')
    .innerJoin('emailPreferences as p', (join) => join.on(sql`lower(p.email)`, '=', sql`lower(s.to_email)`))
    .select((eb) => eb.fn.count<string>('s.id').distinct().as('late'))
    .where('s.sentAt', '>=', since)
    .whereRef('p.updatedAt', '<', 's.sentAt')
    .where((eb) =>
      eb.or([
        eb.and([eb('p.suppressed', '=', true), eb('p.suppressedAt', 'is not', null), eb('p.suppressedAt', '<', eb.ref('s.sentAt'))]),
        eb.and([
          required.length === 0 ? sql<boolean>`true` : eb('s.category', 'not in', required),
          eb.or([eb('p.unsubscribedAll', '=', true), sql<boolean>`(p.categories ->> s.category)::boolean = false`]),
        ]),
      ]),
    )
    .executeTakeFirstOrThrow();
  const late = Number(row.late);
  return late === 0
    ? pass('sending.unsubscribes', 'no email in the last 24 h went to an address after it unsubscribed or was suppressed')
    : fail(
        'sending.unsubscribes',
        `${late} email${late === 1 ? '' : 's'} in the last 24 h went to an address after it had unsubscribed from the category or was suppressed`,
        "find them in the studio's Emails page, and the code path that sent them without the send gate (preferences/send-gate.ts)",
      );
}

/** What Waymark sends: the unsubscribe headers, HTTPS links, and unsubscribes honoured. */
export async function sendingChecks(
  deps: { db: Db; categories: PreferenceCategories },
  settings: Pick<DoctorSettings, 'apiPublicUrl' | 'isProduction'>,
  now: Date,
): Promise<DoctorCheck[]> {
  return [listUnsubscribeCheck(settings, deps.categories), publicUrlCheck(settings), await unsubscribesAppliedCheck(deps.db, deps.categories, now)];
}
