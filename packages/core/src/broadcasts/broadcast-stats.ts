import { sql } from 'kysely';
import type { Db } from '../db/database';

export interface BroadcastStats {
  sent: number;
  failed: number;
  skipped: { unsubscribed: number; suppressed: number; noEmail: number; missingData: number; frequencyCap: number };
  delivered: number;
  bounced: number;
  complained: number;
  opens: { human: number; machine: number };
  clicks: { human: number; machine: number };
  /** recipients who left this broadcast's category (or everything) after its email was sent */
  unsubscribed: number;
}

/** Recipients past `pending` (sent, failed, skipped or cancelled), for progress. */
export interface BroadcastCounts {
  stats: BroadcastStats;
  done: number;
}

interface StatsRow {
  broadcastId: string;
  variantId: string | null;
  sent: string;
  failed: string;
  unsubscribedSkip: string;
  suppressed: string;
  noEmail: string;
  missingData: string;
  frequencyCap: string;
  done: string;
  delivered: string;
  bounced: string;
  complained: string;
  humanOpens: string;
  machineOpens: string;
  humanClicks: string;
  machineClicks: string;
  unsubscribed: string;
}

export function emptyStats(): BroadcastStats {
  return {
    sent: 0,
    failed: 0,
    skipped: { unsubscribed: 0, suppressed: 0, noEmail: 0, missingData: 0, frequencyCap: 0 },
    delivered: 0,
    bounced: 0,
    complained: 0,
    opens: { human: 0, machine: 0 },
    clicks: { human: 0, machine: 0 },
    unsubscribed: 0,
  };
}

function add(into: BroadcastCounts, row: StatsRow): void {
  const n = (value: string) => Number(value);
  const stats = into.stats;
  stats.sent += n(row.sent);
  stats.failed += n(row.failed);
  stats.skipped.unsubscribed += n(row.unsubscribedSkip);
  stats.skipped.suppressed += n(row.suppressed);
  stats.skipped.noEmail += n(row.noEmail);
  stats.skipped.missingData += n(row.missingData);
  stats.skipped.frequencyCap += n(row.frequencyCap);
  stats.delivered += n(row.delivered);
  stats.bounced += n(row.bounced);
  stats.complained += n(row.complained);
  stats.opens.human += n(row.humanOpens);
  stats.opens.machine += n(row.machineOpens);
  stats.clicks.human += n(row.humanClicks);
  stats.clicks.machine += n(row.machineClicks);
  stats.unsubscribed += n(row.unsubscribed);
  into.done += n(row.done);
}

/** Stats of each broadcast: the whole (`total`) and per variant id, from its recipients and their sends, in one query. */
export async function broadcastStats(db: Db, ids: readonly string[]): Promise<Map<string, { total: BroadcastCounts; variants: Map<string, BroadcastCounts> }>> {
  const result = new Map<string, { total: BroadcastCounts; variants: Map<string, BroadcastCounts> }>();
  if (ids.length === 0) return result;
  // opens and clicks count emails, not hits: an email opened by a scanner and later by its reader is a human open
  const rows = await sql<StatsRow>`
    select r.broadcast_id as "broadcastId", r.variant_id as "variantId",
      count(*) filter (where r.status = 'sent') as sent,
      count(*) filter (where r.status = 'failed') as failed,
      count(*) filter (where r.status = 'skipped' and r.reason = 'unsubscribed') as "unsubscribedSkip",
      count(*) filter (where r.status = 'skipped' and r.reason = 'suppressed') as suppressed,
      count(*) filter (where r.status = 'skipped' and r.reason = 'no_email') as "noEmail",
      count(*) filter (where r.status = 'skipped' and r.reason = 'missing_data') as "missingData",
      count(*) filter (where r.status = 'skipped' and r.reason = 'frequency_cap') as "frequencyCap",
      count(*) filter (where r.status <> 'pending') as done,
      count(e.delivered_at) as delivered,
      count(e.bounced_at) as bounced,
      count(e.complained_at) as complained,
      count(e.human_opened_at) as "humanOpens",
      count(*) filter (where e.opened_at is not null and e.human_opened_at is null) as "machineOpens",
      count(e.human_clicked_at) as "humanClicks",
      count(*) filter (where e.clicked_at is not null and e.human_clicked_at is null) as "machineClicks",
      count(*) filter (where e.sent_at is not null and exists (
        select 1 from email_preferences p
        where lower(p.email) = lower(e.to_email) and p.updated_at >= e.sent_at
          and (p.unsubscribed_all or (p.categories ->> e.category) = 'false')
      )) as unsubscribed
    from broadcast_recipients r
    left join email_sends e on e.id = r.email_send_id
    where r.broadcast_id = any(${ids}::uuid[])
    group by r.broadcast_id, r.variant_id`.execute(db);
  const blank = (): BroadcastCounts => ({ stats: emptyStats(), done: 0 });
  for (const id of ids) result.set(id, { total: blank(), variants: new Map() });
  for (const row of rows.rows) {
    const entry = result.get(row.broadcastId)!;
    add(entry.total, row);
    if (row.variantId !== null) {
      const variant = entry.variants.get(row.variantId) ?? blank();
      add(variant, row);
      entry.variants.set(row.variantId, variant);
    }
  }
  return result;
}
