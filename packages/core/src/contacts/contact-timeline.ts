import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/database';
import type { JsonObject } from '../db/schema';
import { getContact } from './contact';

export const timelineTypes = ['event', 'journey', 'email'] as const;
export type TimelineType = (typeof timelineTypes)[number];

export interface TimelineEntry {
  type: TimelineType;
  timestamp: Date;
  data: JsonObject;
}

export interface TimelineQuery {
  limit: number;
  offset: number;
  type?: TimelineType | undefined;
}

const TIMESTAMP_FIELDS = ['completedAt', 'exitedAt', 'sentAt', 'deliveredAt', 'openedAt', 'humanOpenedAt', 'clickedAt', 'humanClickedAt'];

/** jsonb renders timestamptz as `2024-05-01T10:00:00.123456+00:00`; the API speaks ISO 8601 UTC. */
function normalizeData(data: JsonObject): JsonObject {
  const out: JsonObject = { ...data };
  for (const key of TIMESTAMP_FIELDS) {
    const value = out[key];
    if (typeof value === 'string') out[key] = new Date(value).toISOString();
  }
  return out;
}

/**
 * The contact timeline: events (at occurredAt), journey states (at createdAt) and email sends (at
 * createdAt) of one contact, newest first. Each branch is cut to `offset + limit` rows by its own
 * index before the merge, so the cost follows the page asked for, not the contact's history
 * (a contact with 100k events pages in milliseconds; see the timeline test).
 */
export async function getContactTimeline(db: Db, idOrExternalId: string, query: TimelineQuery): Promise<{ timeline: TimelineEntry[]; total: number }> {
  const contact = await getContact(db, idOrExternalId);
  const userId = contact.externalId ?? contact.email?.toLowerCase() ?? '';
  const email = contact.email?.toLowerCase() ?? null;
  const window = query.offset + query.limit;
  const wanted = (type: TimelineType) => query.type === undefined || query.type === type;

  const emailMatch = email === null ? sql`user_id = ${userId}` : sql`(user_id = ${userId} or lower(to_email) = ${email})`;
  const branches: RawBuilder<unknown>[] = [];
  const counts: RawBuilder<unknown>[] = [];
  if (wanted('event')) {
    branches.push(sql`(select 'event' as type, occurred_at as ts, id,
        jsonb_build_object('id', id, 'event', event, 'properties', properties) as data
      from events where user_id = ${userId} order by occurred_at desc, id desc limit ${window})`);
    counts.push(sql`(select count(*) from events where user_id = ${userId})`);
  }
  if (wanted('journey')) {
    branches.push(sql`(select 'journey' as type, created_at as ts, id,
        jsonb_build_object('id', id, 'journeyId', journey_id, 'status', status, 'currentNodeId', current_node_id,
          'completedAt', completed_at, 'exitedAt', exited_at, 'holdout', holdout, 'convertedAt', converted_at,
          'conversionValue', conversion_value, 'conversionEventId', conversion_event_id) as data
      from journey_states where user_id = ${userId} order by created_at desc, id desc limit ${window})`);
    counts.push(sql`(select count(*) from journey_states where user_id = ${userId})`);
  }
  if (wanted('email')) {
    branches.push(sql`(select 'email' as type, created_at as ts, id,
        jsonb_build_object('id', id, 'templateKey', template_key, 'subject', subject, 'status', status, 'toEmail', to_email, 'locale', locale,
          'sentAt', sent_at, 'deliveredAt', delivered_at, 'openedAt', opened_at, 'humanOpenedAt', human_opened_at,
          'clickedAt', clicked_at, 'humanClickedAt', human_clicked_at) as data
      from email_sends where ${emailMatch} order by created_at desc, id desc limit ${window})`);
    counts.push(sql`(select count(*) from email_sends where ${emailMatch})`);
  }

  const [page, total] = await Promise.all([
    sql<{ type: TimelineType; ts: Date; data: JsonObject }>`
      select type, ts, data from (${sql.join(branches, sql` union all `)}) merged
      order by ts desc, id desc limit ${query.limit} offset ${query.offset}`.execute(db),
    sql<{ total: number }>`select (${sql.join(counts, sql` + `)})::int as total`.execute(db),
  ]);
  return {
    timeline: page.rows.map((row) => ({ type: row.type, timestamp: row.ts, data: normalizeData(row.data) })),
    total: total.rows[0]?.total ?? 0,
  };
}
