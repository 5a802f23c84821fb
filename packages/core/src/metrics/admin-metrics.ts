import { sql } from 'kysely';
import type { Db } from '../db/database';
import { eventEffectStats } from '../events/event-effects';

export interface AdminMetrics {
  window: { from: Date; to: Date };
  events: { ingested: number };
  journeys: { entered: number; completed: number; failed: number; exited: number };
  emails: {
    sent: number;
    delivered: number;
    opened: number;
    clicked: number;
    bounced: number;
    complained: number;
    failed: number;
    rates: { delivery: number | null; open: number | null; click: number | null; bounce: number | null; complaint: number | null };
  };
  dlq: { pending: number };
  /** now, not over the window: journey effects of stored events (starts, signals, exits) not yet carried out */
  eventEffects: { pending: number; oldestPendingAt: Date | null };
  /** now: the starts among them */
  journeyStarts: { pending: number; oldestPendingAt: Date | null };
}

const ratio = (part: number, whole: number): number | null => (whole === 0 ? null : Math.round((part / whole) * 10_000) / 10_000);

/**
 * Operator headline numbers over [from, to). Each figure counts the moment it names (sentAt for
 * sent, deliveredAt for delivered, completedAt for completed, …) in the window; rates divide by
 * emails sent in the same window. One aggregate per table, on the time indexes of 0001/0004.
 */
export async function getAdminMetrics(db: Db, window: { from: Date; to: Date }): Promise<AdminMetrics> {
  const { from, to } = window;
  const inWindow = (column: string) => sql<number>`(count(*) filter (where ${sql.ref(column)} >= ${from} and ${sql.ref(column)} < ${to}))::int`;
  const [events, journeys, emails, dlq, effects] = await Promise.all([
    db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll<number>().as('ingested'))
      .where('occurredAt', '>=', from)
      .where('occurredAt', '<', to)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('journeyStates')
      .select([
        inWindow('created_at').as('entered'),
        inWindow('completed_at').as('completed'),
        sql<number>`(count(*) filter (where status = 'failed' and updated_at >= ${from} and updated_at < ${to}))::int`.as('failed'),
        inWindow('exited_at').as('exited'),
      ])
      .where((eb) => eb.or([eb.and([eb('createdAt', '>=', from), eb('createdAt', '<', to)]), eb.and([eb('updatedAt', '>=', from), eb('updatedAt', '<', to)])]))
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('emailSends')
      .select([
        inWindow('sent_at').as('sent'),
        inWindow('delivered_at').as('delivered'),
        inWindow('human_opened_at').as('opened'),
        inWindow('human_clicked_at').as('clicked'),
        inWindow('bounced_at').as('bounced'),
        inWindow('complained_at').as('complained'),
        sql<number>`(count(*) filter (where status = 'failed'))::int`.as('failed'),
      ])
      .where((eb) => eb.or([eb.and([eb('createdAt', '>=', from), eb('createdAt', '<', to)]), eb.and([eb('sentAt', '>=', from), eb('sentAt', '<', to)])]))
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('dlqEntries')
      .select((eb) => eb.fn.countAll<number>().as('pending'))
      .where('status', '=', 'pending')
      .executeTakeFirstOrThrow(),
    eventEffectStats(db),
  ]);
  return {
    window: { from, to },
    events: { ingested: events.ingested },
    journeys,
    emails: {
      ...emails,
      rates: {
        delivery: ratio(emails.delivered, emails.sent),
        open: ratio(emails.opened, emails.sent),
        click: ratio(emails.clicked, emails.sent),
        bounce: ratio(emails.bounced, emails.sent),
        complaint: ratio(emails.complained, emails.sent),
      },
    },
    dlq,
    eventEffects: { pending: effects.pending, oldestPendingAt: effects.oldestAt },
    journeyStarts: { pending: effects.starts.pending, oldestPendingAt: effects.starts.oldestAt },
  };
}
