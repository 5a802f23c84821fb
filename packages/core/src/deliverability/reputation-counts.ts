import { sql } from 'kysely';
import type { Db } from '../db/database';
import type { SendGroup } from '../db/schema';
import type { WindowCounts } from './breaker-verdict';
import type { MailboxProvider } from '../delivery/mailbox-provider';

/** A group and mailbox provider: what the breaker judges apart. */
export interface BreakerKey {
  group: SendGroup;
  provider: MailboxProvider | string;
}

export const breakerKeyOf = (key: BreakerKey) => `${key.group}/${key.provider}`;

/** The group of a send: `transactional` for a required category (mail the person asked for), `marketing` for any other. */
export function sendGroupOf(required: boolean): SendGroup {
  return required ? 'transactional' : 'marketing';
}

/** The SES events the breaker counts: a delivery and a hard bounce each count a send. */
export type ReputationEvent = 'delivered' | 'bounced' | 'complained';

/**
 * Counts one SES event in its hour's row, as it arrives (one upsert), so the window's rates are a
 * sum of at most REPUTATION_WINDOW_HOURS rows, never a scan of the sends.
 */
export async function countReputationEvent(db: Db, key: BreakerKey, event: ReputationEvent, at: Date): Promise<void> {
  const sends = event === 'complained' ? 0 : 1;
  const bounces = event === 'bounced' ? 1 : 0;
  const complaints = event === 'complained' ? 1 : 0;
  await sql`
    insert into reputation_counts as c (send_group, provider, hour, sends, bounces, complaints)
    values (${key.group}, ${key.provider}, date_trunc('hour', ${at}::timestamptz), ${sends}, ${bounces}, ${complaints})
    on conflict (send_group, provider, hour) do update
    set sends = c.sends + excluded.sends, bounces = c.bounces + excluded.bounces, complaints = c.complaints + excluded.complaints`.execute(db);
}

/** Every group and provider with counts in the window ending at `now`, keyed by `breakerKeyOf`. */
export async function readWindowCounts(db: Db, now: Date, windowHours: number): Promise<Map<string, BreakerKey & WindowCounts>> {
  // the hour `now` falls in counts whole: the window is the last `windowHours` hourly rows
  const from = new Date(now.getTime() - (windowHours - 1) * 3_600_000);
  const rows = await db
    .selectFrom('reputationCounts')
    .select([
      'sendGroup',
      'provider',
      sql<number>`sum(sends)::int`.as('sends'),
      sql<number>`sum(bounces)::int`.as('bounces'),
      sql<number>`sum(complaints)::int`.as('complaints'),
    ])
    .where('hour', '>=', sql<Date>`date_trunc('hour', ${from}::timestamptz)`)
    .groupBy(['sendGroup', 'provider'])
    .execute();
  return new Map(
    rows.map((row) => {
      const key = { group: row.sendGroup, provider: row.provider };
      return [breakerKeyOf(key), { ...key, sends: row.sends, bounces: row.bounces, complaints: row.complaints }];
    }),
  );
}
