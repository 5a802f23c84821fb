import { sql, type Expression } from 'kysely';
import type { PreferenceCategory } from '@waymark/email/preference-categories';
import type { Db } from '../db/database';
import { addressKept, SUPPRESSING_REASONS } from '../contacts/address-suppressions';

export type SendBlockReason = 'unsubscribed_all' | 'suppressed' | 'category_unsubscribed';

export interface SendGateResult {
  allowed: boolean;
  reason?: SendBlockReason;
}

/**
 * The category a send is gated by: a declared category, whose `required` the gate honours, or a
 * bare key (gated as a category a person may leave: a broadcast's, a test's).
 */
export type GateCategory = string | Pick<PreferenceCategory, 'key' | 'required'>;

const keyOf = (category: GateCategory) => (typeof category === 'string' ? category : category.key);
/** A required category (receipts, resets) is sent whatever the person's preferences say. */
export const isRequired = (category: GateCategory) => typeof category !== 'string' && category.required === true;

/** What the gate aggregates over an address's preference rows (null when it has none). */
export interface SendGateVerdicts {
  suppressed: boolean | null;
  unsubscribedAll: boolean | null;
  categoryOff: boolean | null;
}

/**
 * The gate's aggregates over the preference rows of one address, as select expressions, so a
 * statement that reads more (the journey send's one read: deliver-journey-email.ts) asks the gate
 * exactly as checkSendGateForAddresses does. `address` is the address asked about: a suppression
 * or global unsubscribe kept after its contact was deleted (contacts/address-suppressions.ts)
 * counts as the rows' own, so it stops every send path alike.
 */
export function sendGateVerdicts(category: GateCategory, address: Expression<string>) {
  const key = keyOf(category);
  return [
    sql<boolean>`(coalesce(bool_or(suppressed), false) or ${addressKept(address, SUPPRESSING_REASONS)})`.as('suppressed'),
    sql<boolean>`(coalesce(bool_or(unsubscribed_all), false) or ${addressKept(address, ['unsubscribed'])})`.as('unsubscribedAll'),
    sql<boolean>`coalesce(bool_or((categories ->> ${key})::boolean = false), false)`.as('categoryOff'),
  ] as const;
}

/**
 * The strictest verdict wins: suppressed, then unsubscribed from all, then the category turned off.
 * The one place a required category is decided: the person asked for its emails (a password reset,
 * a receipt), so only suppression (bounces, complaints) stops them (docs/email.md, "Preference categories").
 */
export function sendGateResult(verdicts: SendGateVerdicts, category: GateCategory): SendGateResult {
  const reason =
    verdicts.suppressed === true
      ? 'suppressed'
      : isRequired(category)
        ? undefined
        : verdicts.unsubscribedAll === true
          ? 'unsubscribed_all'
          : verdicts.categoryOff === true
            ? 'category_unsubscribed'
            : undefined;
  return reason === undefined ? { allowed: true } : { allowed: false, reason };
}

/**
 * The send gate, the one rule for who may receive what: may each of these addresses get an email
 * of `category` now? One query for the whole set, so a send, a journey entry, a batch enrollment
 * and a broadcast to many people all ask it the same way. A contact is gated by its address:
 * preferences are kept per address, and every preference row of an address counts (rows may exist
 * before their contact, e.g. from a suppression import, and under different user ids), and so does
 * the address's suppression kept after a contact with it was deleted. When rows
 * disagree the strictest wins: suppressed, then unsubscribed from all, then the category turned off
 * (a required category: suppression only).
 *
 * The answer has one entry per distinct address as given (addresses compare case-insensitively).
 */
export async function checkSendGateForAddresses(db: Db, addresses: Iterable<string>, category: GateCategory): Promise<Map<string, SendGateResult>> {
  const given = [...new Set(addresses)];
  const verdicts = await readSendGateVerdicts(db, given, category);
  return new Map(
    given.map((address) => {
      const row = verdicts.get(address.toLowerCase());
      return [address, row === undefined ? { allowed: true } : sendGateResult(row, category)];
    }),
  );
}

/**
 * The gate's aggregates of each address (keyed lower-cased), in one query for the whole set, for
 * a caller that asks `sendGateResult` itself (delivery/admit-sends.ts).
 */
export async function readSendGateVerdicts(db: Db, addresses: Iterable<string>, category: GateCategory): Promise<Map<string, SendGateVerdicts>> {
  const keys = [...new Set([...addresses].map((address) => address.toLowerCase()))];
  if (keys.length === 0) return new Map();
  // one array parameter, however many addresses: a broadcast may ask for many thousands; one
  // row per address, with or without preference rows (a kept suppression needs none)
  const { rows } = await sql<{ address: string } & SendGateVerdicts>`
    select given.address, gate.*
    from unnest(${keys}::text[]) as given(address)
    cross join lateral (
      select ${sql.join(sendGateVerdicts(category, sql.ref('given.address')))} from email_preferences where lower(email) = given.address
    ) as gate`.execute(db);
  return new Map(rows.map(({ address, ...verdicts }) => [address, verdicts]));
}

/** The send gate for one address (every send, the journey entry guard, a DLQ retry). */
export async function checkSendGate(db: Db, email: string, category: GateCategory): Promise<SendGateResult> {
  const answer = await checkSendGateForAddresses(db, [email], category);
  return answer.get(email)!;
}
