import type { Db } from '../db/database';
import { paginate, type PageQuery } from '../db/paginate';
import type { BroadcastRecipientStatus } from '../db/schema';
import { getBroadcastRow } from './broadcasts';

export interface BroadcastRecipient {
  contactId: string;
  userId: string | null;
  email: string | null;
  variantId: string | null;
  status: BroadcastRecipientStatus;
  /** why it was skipped (unsubscribed, suppressed, no_email, missing_data, frequency_cap, holdout) or failed */
  reason: string | null;
  emailId: string | null;
}

export interface RecipientFilter {
  status?: BroadcastRecipientStatus | undefined;
  variantId?: string | undefined;
}

/** GET …/recipients: the snapshot in send order, filtered by status and variant. */
export async function listBroadcastRecipients(
  db: Db,
  id: string,
  filter: RecipientFilter,
  page: PageQuery,
): Promise<{ recipients: BroadcastRecipient[]; total: number }> {
  await getBroadcastRow(db, id);
  const filtered = db
    .selectFrom('broadcastRecipients')
    .where('broadcastId', '=', id)
    .$if(filter.status !== undefined, (query) => query.where('status', '=', filter.status!))
    .$if(filter.variantId !== undefined, (query) => query.where('variantId', '=', filter.variantId!));
  const { rows, total } = await paginate(
    filtered.select(['contactId', 'userId', 'email', 'variantId', 'status', 'reason', 'emailSendId as emailId']).orderBy('position'),
    filtered,
    page,
  );
  return { recipients: rows, total };
}
