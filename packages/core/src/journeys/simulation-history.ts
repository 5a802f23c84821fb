import { sql } from 'kysely';
import { type Journey } from '@waymark/journey';
import { recipientTimeZone, TIME_ZONE_PROPERTY } from '../contacts/time-zone';
import type { Db } from '../db/database';
import type { PrimitiveProperties } from './orchestrator';
import { primitiveProperties } from './orchestrator';

/** One person's real history as a simulation replays it: the trigger, then later events in order. */
export interface SimulationSubject {
  userId: string;
  email: string;
  trigger: { at: Date; properties: PrimitiveProperties };
  /** the person's events in the window before the trigger (what `ctx.history.hasEvent` finds) */
  earlier: { name: string; at: Date; properties: PrimitiveProperties }[];
  later: { name: string; at: Date; properties: PrimitiveProperties }[];
  /** the contact's `timezone` property, when set: the clock their quiet hours and local times run on */
  timeZone?: string;
  /** emails that reached the address in the window from anything but this journey: what the frequency caps count */
  otherSends?: { at: Date; category: string }[];
}

/**
 * The people whose trigger event arrived in [since, until): each one's first trigger in the
 * window, their events in the window before it, and every later event of theirs up to `until`,
 * oldest first (read-only).
 */
export async function loadSimulationSubjects(db: Db, input: { journey: Journey; since: Date; until: Date; limit: number }): Promise<SimulationSubject[]> {
  const triggers = await sql<{ userId: string; userEmail: string | null; occurredAt: Date; properties: Record<string, unknown> }>`
    select * from (
      select distinct on (user_id) user_id as "userId", user_email as "userEmail", occurred_at as "occurredAt", properties
      from events
      where event = ${input.journey.trigger.event} and occurred_at >= ${input.since} and occurred_at < ${input.until}
      order by user_id, occurred_at
    ) firsts order by "occurredAt" limit ${input.limit}`.execute(db);
  if (triggers.rows.length === 0) return [];
  const userIds = triggers.rows.map((row) => row.userId);
  const later = await db
    .selectFrom('events')
    .select(['userId', 'event', 'occurredAt', 'properties'])
    .where('userId', 'in', userIds)
    .where('occurredAt', '<', input.until)
    .where('occurredAt', '>=', input.since)
    .orderBy('occurredAt')
    .execute();
  const emails = triggers.rows.flatMap((row) => (row.userEmail === null ? [] : [row.userEmail.toLowerCase()]));
  const [zones, otherSends] = await Promise.all([
    db
      .selectFrom('contacts')
      .select(['externalId', sql<string | null>`lower(email)`.as('email'), sql<string | null>`properties->>${TIME_ZONE_PROPERTY}`.as('zone')])
      .where((eb) => eb.or([eb('externalId', 'in', userIds), ...(emails.length === 0 ? [] : [eb(sql<string>`lower(email)`, 'in', emails)])]))
      .execute(),
    emails.length === 0
      ? Promise.resolve([])
      : db
          .selectFrom('emailSends')
          .leftJoin('journeyStates', 'journeyStates.id', 'emailSends.journeyStateId')
          .select([sql<string>`lower(email_sends.to_email)`.as('email'), 'emailSends.category', 'emailSends.createdAt'])
          .where(sql<string>`lower(email_sends.to_email)`, 'in', emails)
          .where('emailSends.createdAt', '>=', input.since)
          .where('emailSends.createdAt', '<', input.until)
          .where('emailSends.status', '!=', 'failed')
          .where((eb) => eb.or([eb('journeyStates.journeyId', 'is', null), eb('journeyStates.journeyId', '!=', input.journey.id)]))
          .execute(),
  ]);
  const zoneOf = (row: { userId: string; userEmail: string | null }): string | undefined => {
    const contact =
      zones.find((candidate) => candidate.externalId === row.userId) ??
      zones.find((candidate) => candidate.externalId === null && candidate.email !== null && candidate.email === row.userEmail?.toLowerCase());
    return recipientTimeZone(contact?.zone, undefined);
  };
  return triggers.rows.map((row) => ({
    userId: row.userId,
    email: row.userEmail ?? `${row.userId}@simulation.invalid`,
    ...withTimeZone(zoneOf(row)),
    otherSends: otherSends
      .filter((send) => send.email === row.userEmail?.toLowerCase())
      .map((send) => ({ at: new Date(send.createdAt), category: send.category })),
    trigger: { at: row.occurredAt, properties: primitiveProperties(row.properties) },
    earlier: later
      .filter((event) => event.userId === row.userId && event.occurredAt < row.occurredAt)
      .map((event) => ({ name: event.event, at: event.occurredAt, properties: primitiveProperties(event.properties as Record<string, unknown>) })),
    later: later
      .filter((event) => event.userId === row.userId && event.occurredAt > row.occurredAt)
      .map((event) => ({ name: event.event, at: event.occurredAt, properties: primitiveProperties(event.properties as Record<string, unknown>) })),
  }));
}

const withTimeZone = (timeZone: string | undefined) => (timeZone === undefined ? {} : { timeZone });

/** What the live journey actually sent in the window, per template key. */
export async function countSentByTemplate(db: Db, input: { journeyId: string; since: Date; until: Date }): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom('emailSends')
    .innerJoin('journeyStates', 'journeyStates.id', 'emailSends.journeyStateId')
    .select(['emailSends.templateKey', (eb) => eb.fn.countAll<string>().as('count')])
    .where('journeyStates.journeyId', '=', input.journeyId)
    .where('emailSends.createdAt', '>=', input.since)
    .where('emailSends.createdAt', '<', input.until)
    .groupBy('emailSends.templateKey')
    .execute();
  return Object.fromEntries(rows.map((row) => [row.templateKey, Number(row.count)]));
}
