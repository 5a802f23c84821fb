import { sql } from 'kysely';
import type { Db } from '../db/database';

export interface ActivitySeries {
  /** one row per hour of the window that saw events (missing hours had none) */
  eventsPerHour: { hour: Date; count: number }[];
  /** per day of the window, emails that reached each stage (a clicked email also counts as opened) */
  emailsPerDay: { day: Date; sent: number; delivered: number; opened: number; clicked: number; bounced: number }[];
}

/**
 * The overview charts: events per hour over the last `hours`, email outcomes per day over the
 * last `days`. Both scan a time range through the existing created/occurred indexes.
 */
export async function getActivitySeries(db: Db, options: { now: Date; hours: number; days: number }): Promise<ActivitySeries> {
  const eventsFrom = new Date(options.now.getTime() - options.hours * 3_600_000);
  const emailsFrom = new Date(options.now.getTime() - options.days * 86_400_000);
  const [events, emails] = await Promise.all([
    db
      .selectFrom('events')
      .select([sql<Date>`date_trunc('hour', occurred_at)`.as('hour'), sql<string>`count(*)`.as('count')])
      .where('occurredAt', '>=', eventsFrom)
      .where('occurredAt', '<=', options.now)
      .groupBy(sql`1`)
      .orderBy(sql`1`)
      .execute(),
    db
      .selectFrom('emailSends')
      .select([
        sql<Date>`date_trunc('day', created_at)`.as('day'),
        sql<string>`count(*) filter (where sent_at is not null)`.as('sent'),
        sql<string>`count(*) filter (where delivered_at is not null)`.as('delivered'),
        sql<string>`count(*) filter (where human_opened_at is not null)`.as('opened'),
        sql<string>`count(*) filter (where human_clicked_at is not null)`.as('clicked'),
        sql<string>`count(*) filter (where bounced_at is not null)`.as('bounced'),
      ])
      .where('createdAt', '>=', emailsFrom)
      .groupBy(sql`1`)
      .orderBy(sql`1`)
      .execute(),
  ]);
  return {
    eventsPerHour: events.map((row) => ({ hour: new Date(row.hour), count: Number(row.count) })),
    emailsPerDay: emails.map((row) => ({
      day: new Date(row.day),
      sent: Number(row.sent),
      delivered: Number(row.delivered),
      opened: Number(row.opened),
      clicked: Number(row.clicked),
      bounced: Number(row.bounced),
    })),
  };
}
