import { sql } from 'kysely';
import { isTimeZone } from '@waymark/journey';
import type { Db } from '../db/database';
import { badRequest } from '../errors/app-error';
import { namedByUserId } from './contact';
import { localeProblem } from './locale';

/** The contact property that holds a recipient's IANA time zone (docs/journeys.md, "Timing and etiquette"). */
export const TIME_ZONE_PROPERTY = 'timezone';

/**
 * The 400 message for a `timezone` property that is not an IANA name or a `locale` that is not a
 * BCP 47 tag, or undefined (null removes either, so it passes).
 */
export function contactPropertiesProblem(properties: Record<string, unknown> | undefined, path: string): string | undefined {
  const value = properties?.[TIME_ZONE_PROPERTY];
  if (value === undefined || value === null || isTimeZone(value)) return localeProblem(properties, path);
  return `${path}.${TIME_ZONE_PROPERTY} must be an IANA time zone name such as Europe/Paris, got ${JSON.stringify(value)}`;
}

/**
 * Every write of contact properties (events, the contacts APIs, the studio, imports) passes here
 * before anything is stored, so a contact never holds a time zone its journeys cannot use, nor a
 * locale its emails cannot be matched to.
 */
export function checkContactProperties(properties: Record<string, unknown> | undefined, path: string): void {
  const problem = contactPropertiesProblem(properties, path);
  if (problem !== undefined) throw badRequest(`Invalid request: ${problem}`);
}

/**
 * The one rule for a recipient's time zone (docs/contributing.md, "One home per rule"): the stored
 * `timezone` property when it names a zone, else `fallback` (DEFAULT_TIMEZONE). Journeys, caps,
 * broadcasts' `localTime` and the simulator's history all resolve through it.
 */
export function recipientTimeZone<Fallback extends string | undefined>(stored: unknown, fallback: Fallback): string | Fallback {
  return isTimeZone(stored) ? stored : fallback;
}

/**
 * The recipient's time zone: the contact's `timezone` property (found by external id, else by the
 * address an email-only contact is keyed by), else `fallback` (DEFAULT_TIMEZONE).
 */
export async function contactTimeZone(db: Db, userId: string, fallback: string): Promise<string> {
  const result = await sql<{ zone: string | null }>`
    select properties->>${TIME_ZONE_PROPERTY} as zone from contacts
    where ${namedByUserId(userId)}
    order by (external_id is null), last_seen_at desc limit 1`.execute(db);
  return recipientTimeZone(result.rows[0]?.zone, fallback);
}
