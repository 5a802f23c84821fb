import { sql, type Transaction } from 'kysely';
import { capCounts, capPeriodMs, capsFor, capVerdict, type DeliveryPolicy, type FrequencyCap } from '@waymark/journey';
import type { Db } from '../db/database';
import type { Database } from '../db/schema';

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

/** A claim older than this belongs to a send whose worker died before the send path answered: it no longer counts. */
const CLAIM_TTL_MS = 10 * 60_000;

type Earlier = Map<string, { at: number; category: string }[]>;

/**
 * Every earlier send to `emails` that the caps count, per lower-cased address: rows of email_sends
 * in the longest window (failed sends reached nobody), plus the live claims of admitted sends whose
 * row does not exist yet. `exclude`: the idempotency keys of the sends being decided (a retry
 * finds its own row or claim). email_sends_to_idx (lower(to_email), created_at) serves the first.
 */
async function earlierSends(
  db: Db | Transaction<Database>,
  policy: DeliveryPolicy,
  caps: readonly FrequencyCap[],
  input: { emails: readonly string[]; at: Date; exclude: readonly string[] },
): Promise<Earlier> {
  const since = new Date(input.at.getTime() - Math.max(...caps.map((cap) => capPeriodMs(cap.per))));
  // one statement, so one snapshot: as two, a send row committed between them would be missed by
  // the first and its claim dropped by the second (`not exists`), and a third send let through
  const rows = await db
    .selectFrom('emailSends')
    .select([sql<string>`lower(to_email)`.as('email'), 'category', 'createdAt'])
    .where(sql<string>`lower(to_email)`, 'in', input.emails)
    .where('createdAt', '>', since)
    .where('status', '!=', 'failed')
    .$if(input.exclude.length > 0, (query) => query.where((eb) => eb.or([eb('idempotencyKey', 'is', null), eb('idempotencyKey', 'not in', input.exclude)])))
    .unionAll(
      db
        .selectFrom('deliveryCapClaims as c')
        .select(['c.email', 'c.category', 'c.createdAt'])
        .where('c.email', 'in', input.emails)
        .where('c.createdAt', '>', new Date(Math.max(since.getTime(), input.at.getTime() - CLAIM_TTL_MS)))
        .$if(input.exclude.length > 0, (query) => query.where('c.idempotencyKey', 'not in', input.exclude))
        .where(({ not, exists, selectFrom }) =>
          not(exists(selectFrom('emailSends as s').select('s.id').whereRef('s.idempotencyKey', '=', 'c.idempotencyKey'))),
        ),
    )
    .execute();
  const byEmail: Earlier = new Map();
  for (const row of rows) {
    if (!caps.some((cap) => capCounts(policy, cap, row.category))) continue;
    const list = byEmail.get(row.email) ?? [];
    // a row or claim written after `at` was decided after this caller read the clock (it waited for
    // the lock, or the database's clock runs ahead): it counts, as a send at `at`
    list.push({ at: Math.min(new Date(row.createdAt).getTime(), input.at.getTime()), category: row.category });
    byEmail.set(row.email, list);
  }
  return byEmail;
}

/** The caps' verdict on one send of `category` at `at`, given the earlier sends they count (the test kit's world asks it too). */
export function cappedSend(policy: DeliveryPolicy, category: string, at: Date, earlier: readonly { at: number; category: string }[]): CappedSend | undefined {
  const verdict = capVerdict(policy, category, at.getTime(), earlier);
  return verdict.capped ? { onCap: verdict.onCap, cap: verdict.cap, until: new Date(verdict.until) } : undefined;
}

const lowerUnique = (emails: readonly string[]) => [...new Set(emails.map((email) => email.toLowerCase()))];

/**
 * Takes the cap-room lock of each address (lower-cased, as the cap check keys them) until the
 * transaction ends, in one order shared by every caller, so a chunk and a journey step cannot
 * deadlock.
 */
export async function lockCapRooms(trx: Db, emails: readonly string[]): Promise<void> {
  await sql`
    select pg_advisory_xact_lock(k) from (
      select hashtextextended('waymark-delivery-cap:' || e, 0) as k from unnest(${emails}::text[]) as e order by 1
    ) as keys`.execute(trx);
}

/**
 * The cap check the send paths use (a journey step: one send; a broadcast chunk: all of its
 * sends): under a lock per address, the sends over a cap are answered (by idempotency key) and
 * every other one is admitted with a claim that counts it until its email_sends row exists, so two
 * sends to one person decided at the same moment cannot both take the last slot. In list order:
 * two sends of one call to the same address count each other. Release the claims with
 * `releaseCapClaims` once the send path has answered.
 */
export async function claimCapRoom(
  db: Db,
  policy: DeliveryPolicy,
  input: { sends: readonly { idempotencyKey: string; email: string }[]; category: string; at: Date },
): Promise<Map<string, CappedSend>> {
  const capped = new Map<string, CappedSend>();
  const caps = capsFor(policy, input.category);
  if (caps.length === 0 || input.sends.length === 0) return capped;
  const emails = lowerUnique(input.sends.map((send) => send.email));
  return db.transaction().execute(async (trx) => {
    await lockCapRooms(trx, emails);
    await trx
      .deleteFrom('deliveryCapClaims')
      .where('email', 'in', emails)
      .where('createdAt', '<', new Date(input.at.getTime() - CLAIM_TTL_MS))
      .execute();
    const earlier = await earlierSends(trx, policy, caps, { emails, at: input.at, exclude: input.sends.map((send) => send.idempotencyKey) });
    const admitted: { idempotencyKey: string; email: string; category: string; createdAt: Date }[] = [];
    for (const send of input.sends) {
      const email = send.email.toLowerCase();
      const sends = earlier.get(email) ?? [];
      const verdict = cappedSend(policy, input.category, input.at, sends);
      if (verdict !== undefined) {
        capped.set(send.idempotencyKey, verdict);
        continue;
      }
      admitted.push({ idempotencyKey: send.idempotencyKey, email, category: input.category, createdAt: input.at });
      earlier.set(email, [...sends, { at: input.at.getTime(), category: input.category }]);
    }
    if (admitted.length > 0)
      await trx
        .insertInto('deliveryCapClaims')
        .values(admitted)
        .onConflict((oc) => oc.column('idempotencyKey').doNothing())
        .execute();
    return capped;
  });
}

/** Ends the claims of sends the send path has answered (their email_sends rows, if any, now count). */
export async function releaseCapClaims(db: Db, idempotencyKeys: readonly string[]): Promise<void> {
  if (idempotencyKeys.length === 0) return;
  await db.deleteFrom('deliveryCapClaims').where('idempotencyKey', 'in', idempotencyKeys).execute();
}
