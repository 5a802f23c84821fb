import { sql } from 'kysely';
import { capCounts, capPeriodMs, capsFor, capVerdict, type DeliveryPolicy, type FrequencyCap } from '@waymark/journey';
import type { Db } from '../db/database';

/** A recipient over a cap: what the cap says to do and when its window has room again. */
export interface CappedSend {
  onCap: 'skip' | 'delay';
  cap: FrequencyCap;
  /** the earliest moment one more send of the category fits every full cap */
  until: Date;
}

/**
 * The installation's delivery policy as the send paths apply it (docs/journeys.md, "Timing and
 * etiquette"); the worker and the api build it from journeys/delivery-policy.ts.
 */
export interface DeliveryRules {
  policy: DeliveryPolicy;
  /** DEFAULT_TIMEZONE: the clock a hold's end is shown on for a recipient without a `timezone` */
  defaultTimeZone: string;
}

/**
 * Which of `emails` a send of `category` at `at` would put over a frequency cap, counted per
 * address (the contact) from `email_sends` across every journey, broadcast and transactional
 * send; failed sends reached nobody and do not count. Set-based: one query for a whole chunk.
 * Addresses not in the answer may be sent to. An exempt or uncapped category asks nothing.
 * `excludeIdempotencyKey`: the send being decided, when a retry finds its own row.
 */
export async function findCappedRecipients(
  db: Db,
  policy: DeliveryPolicy,
  input: { emails: readonly string[]; category: string; at: Date; excludeIdempotencyKey?: string },
): Promise<Map<string, CappedSend>> {
  const capped = new Map<string, CappedSend>();
  const caps = capsFor(policy, input.category);
  if (caps.length === 0 || input.emails.length === 0) return capped;
  const emails = [...new Set(input.emails.map((email) => email.toLowerCase()))];
  const since = new Date(input.at.getTime() - Math.max(...caps.map((cap) => capPeriodMs(cap.per))));
  // one row per earlier send in the longest window; email_sends_to_idx (lower(to_email), created_at) serves it
  const rows = await db
    .selectFrom('emailSends')
    .select([sql<string>`lower(to_email)`.as('email'), 'category', 'createdAt'])
    .where(sql<string>`lower(to_email)`, 'in', emails)
    .where('createdAt', '>', since)
    .where('createdAt', '<=', input.at)
    .where('status', '!=', 'failed')
    .$if(input.excludeIdempotencyKey !== undefined, (query) =>
      query.where((eb) => eb.or([eb('idempotencyKey', 'is', null), eb('idempotencyKey', '!=', input.excludeIdempotencyKey ?? '')])),
    )
    .execute();
  const byEmail = new Map<string, { at: number; category: string }[]>();
  for (const row of rows) {
    if (!caps.some((cap) => capCounts(policy, cap, row.category))) continue;
    const list = byEmail.get(row.email) ?? [];
    list.push({ at: new Date(row.createdAt).getTime(), category: row.category });
    byEmail.set(row.email, list);
  }
  for (const [email, earlier] of byEmail) {
    const verdict = capVerdict(policy, input.category, input.at.getTime(), earlier);
    if (verdict.capped) capped.set(email, { onCap: verdict.onCap, cap: verdict.cap, until: new Date(verdict.until) });
  }
  return capped;
}

/**
 * The contacts (by id) among `contactIds` whom a send of `category` at `at` would put over a cap:
 * the set-based form for a broadcast chunk. Contacts without an address are left out (nothing
 * can be sent to them anyway).
 */
export async function findCappedContacts(
  db: Db,
  policy: DeliveryPolicy,
  input: { contactIds: readonly string[]; category: string; at: Date },
): Promise<Map<string, CappedSend>> {
  const capped = new Map<string, CappedSend>();
  if (capsFor(policy, input.category).length === 0 || input.contactIds.length === 0) return capped;
  const contacts = await db
    .selectFrom('contacts')
    .select(['id', 'email'])
    .where('id', 'in', [...input.contactIds])
    .where('email', 'is not', null)
    .execute();
  const byEmail = await findCappedRecipients(db, policy, { emails: contacts.map((contact) => contact.email!), category: input.category, at: input.at });
  for (const contact of contacts) {
    const verdict = byEmail.get(contact.email!.toLowerCase());
    if (verdict !== undefined) capped.set(contact.id, verdict);
  }
  return capped;
}
