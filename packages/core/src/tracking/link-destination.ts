import type { Db } from '../db/database';
import { isUuid } from '../db/ids';

/**
 * Where a tracked link points, without recording a click: the answer for a hit past the tracking
 * ceiling (docs/operations.md, Rate limits), which still redirects. Undefined for an unknown id.
 */
export async function linkDestination(db: Db, linkId: string): Promise<string | undefined> {
  if (!isUuid(linkId)) return undefined;
  const link = await db.selectFrom('trackedLinks').select('originalUrl').where('id', '=', linkId.toLowerCase()).executeTakeFirst();
  return link?.originalUrl;
}
