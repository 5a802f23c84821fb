import { sql } from 'kysely';
import { stringify } from 'csv-stringify/sync';
import type { Db } from '../db/database';
import type { ContactRow } from '../db/schema';
import { likePattern } from './contact-admin';
import { neutralizeFormula } from './csv-formula';

/** Default and maximum rows per export (docs/operations.md, Export). */
export const EXPORT_MAX_ROWS = 10_000;
const BATCH = 500;

export type ExportFormat = 'json' | 'csv';

/** CSV columns, in order. `properties` is one JSON-encoded column (nested values survive). */
export const EXPORT_CSV_COLUMNS = ['id', 'externalId', 'email', 'properties', 'firstSeenAt', 'lastSeenAt', 'createdAt', 'updatedAt'] as const;

export interface ExportQuery {
  format: ExportFormat;
  limit: number;
  search?: string | undefined;
}

/**
 * Contacts in id order, fetched in keyset batches of 500: memory stays flat whatever the
 * export size, and no transaction or cursor is held open while a slow client reads.
 */
async function* contactBatches(db: Db, query: ExportQuery): AsyncGenerator<ContactRow[]> {
  let remaining = query.limit;
  let after: string | undefined;
  while (remaining > 0) {
    let select = db.selectFrom('contacts').selectAll();
    if (query.search !== undefined && query.search !== '') {
      const pattern = likePattern(query.search);
      select = select.where((eb) => eb.or([eb(sql`lower(email)`, 'like', pattern), eb(sql`lower(external_id)`, 'like', pattern)]));
    }
    if (after !== undefined) select = select.where('id', '>', after);
    const rows = await select.orderBy('id').limit(Math.min(BATCH, remaining)).execute();
    if (rows.length === 0) return;
    yield rows;
    remaining -= rows.length;
    after = rows[rows.length - 1]?.id;
    if (rows.length < BATCH) return;
  }
}

function jsonContact(row: ContactRow) {
  return {
    id: row.id,
    externalId: row.externalId,
    email: row.email,
    properties: row.properties,
    firstSeenAt: row.firstSeenAt.toISOString(),
    lastSeenAt: row.lastSeenAt.toISOString(),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function csvRecord(row: ContactRow): string[] {
  const c = jsonContact(row);
  const cells = [c.id, c.externalId ?? '', c.email ?? '', JSON.stringify(c.properties), c.firstSeenAt, c.lastSeenAt, c.createdAt, c.updatedAt];
  return cells.map(neutralizeFormula);
}

/** The export body as text chunks (one per batch): a JSON array or CSV with a header row. */
export async function* exportContacts(db: Db, query: ExportQuery): AsyncGenerator<string> {
  if (query.format === 'csv') {
    yield stringify([[...EXPORT_CSV_COLUMNS]]);
    for await (const rows of contactBatches(db, query)) yield stringify(rows.map(csvRecord));
    return;
  }
  yield '[';
  let first = true;
  for await (const rows of contactBatches(db, query)) {
    const body = rows.map((row) => JSON.stringify(jsonContact(row))).join(',');
    yield first ? body : `,${body}`;
    first = false;
  }
  yield ']';
}

export function exportFileName(format: ExportFormat, now: Date): string {
  return `contacts-${now.toISOString().slice(0, 19).replace(/[:T]/g, '-')}.${format}`;
}
