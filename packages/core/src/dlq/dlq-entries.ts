import { sql } from 'kysely';
import type { Db } from '../db/database';
import type { DlqEntryRow, DlqStatus, JsonObject } from '../db/schema';
import { conflict, notFound } from '../errors/app-error';
import { paginate } from '../db/paginate';

export interface DlqEntry {
  id: string;
  source: string;
  sourceId: string | null;
  payload: JsonObject;
  error: string;
  retryCount: number;
  status: DlqStatus;
  retriedAt: Date | null;
  createdAt: Date;
}

export const DLQ_NOT_FOUND = 'DLQ entry not found';

export function toDlqEntry(row: DlqEntryRow): DlqEntry {
  return {
    id: row.id,
    source: row.source,
    sourceId: row.sourceId,
    payload: row.payload,
    error: row.error,
    retryCount: row.retryCount,
    status: row.status,
    retriedAt: row.retriedAt,
    createdAt: row.createdAt,
  };
}

export interface DlqQuery {
  limit: number;
  offset: number;
  source?: string | undefined;
  status?: DlqStatus | undefined;
}

export async function listDlqEntries(db: Db, query: DlqQuery): Promise<{ entries: DlqEntry[]; total: number }> {
  let base = db.selectFrom('dlqEntries');
  if (query.source !== undefined) base = base.where('source', '=', query.source);
  if (query.status !== undefined) base = base.where('status', '=', query.status);
  const { rows, total } = await paginate(base.selectAll().orderBy('createdAt', 'desc').orderBy('id', 'desc'), base, query);
  return { entries: rows.map(toDlqEntry), total };
}

async function conflictOrMissing(db: Db, id: string, verb: string): Promise<never> {
  const row = await db.selectFrom('dlqEntries').select('status').where('id', '=', id).executeTakeFirst();
  if (row === undefined) throw notFound(DLQ_NOT_FOUND);
  throw conflict(`Cannot ${verb} a DLQ entry in '${row.status}' status`);
}

/** pending → retried, atomically: two concurrent retries cannot both re-queue the task. */
export async function claimDlqEntryForRetry(db: Db, id: string): Promise<DlqEntryRow> {
  const row = await db
    .updateTable('dlqEntries')
    .set({ status: 'retried', retriedAt: new Date(), retryCount: sql<number>`retry_count + 1`, updatedAt: new Date() })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirst();
  return row ?? conflictOrMissing(db, id, 'retry');
}

/** The re-queue itself failed: the entry goes back to pending with the new error. */
export async function releaseDlqEntry(db: Db, id: string, error: string): Promise<void> {
  await db.updateTable('dlqEntries').set({ status: 'pending', retriedAt: null, error, updatedAt: new Date() }).where('id', '=', id).execute();
}

/** SPEC §3: pending → discarded; discarding an entry already retried or discarded is a 409. */
export async function discardDlqEntry(db: Db, id: string): Promise<DlqEntryRow> {
  const row = await db
    .updateTable('dlqEntries')
    .set({ status: 'discarded', updatedAt: new Date() })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirst();
  return row ?? conflictOrMissing(db, id, 'discard');
}
