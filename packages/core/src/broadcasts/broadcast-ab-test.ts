import { sql } from 'kysely';
import type { Db } from '../db/database';
import type { BroadcastRow } from '../db/schema';
import type { AbTest, BroadcastVariant } from './broadcast-schemas';

/**
 * The variant with the best rate of the test's metric among its test recipients who were sent the
 * email (people only, not machine hits); a tie goes to the variant listed first.
 */
export async function pickWinner(db: Db, row: BroadcastRow): Promise<string> {
  const variants = row.variants as unknown as BroadcastVariant[];
  const abTest = row.abTest as unknown as AbTest;
  const hit = abTest.metric === 'human_clicks' ? sql`e.human_clicked_at` : sql`e.human_opened_at`;
  const rows = await sql<{ variantId: string; sent: string; hits: string }>`
    select r.variant_id as "variantId", count(*) as sent, count(${hit}) as hits
    from broadcast_recipients r join email_sends e on e.id = r.email_send_id
    where r.broadcast_id = ${row.id} and r.phase = 'test' and r.status = 'sent'
    group by r.variant_id`.execute(db);
  const rate = new Map(rows.rows.map((result) => [result.variantId, Number(result.sent) === 0 ? 0 : Number(result.hits) / Number(result.sent)]));
  let winner = variants[0]!.id;
  for (const variant of variants) if ((rate.get(variant.id) ?? 0) > (rate.get(winner) ?? 0)) winner = variant.id;
  return winner;
}
