import { parse } from 'csv-parse/sync';
import { z } from 'zod';
import type { JsonObject, JsonValue } from '../db/schema';
import { AppError, badRequest } from '../errors/app-error';
import { contactPropertiesProblem } from '../contacts/time-zone';

export type ImportFormat = 'csv' | 'json';

/** One input row before validation: CSV rows are string cells, JSON rows any values. */
export type RawImportRow = Record<string, unknown>;

export interface ImportContactRow {
  externalId: string;
  email?: string;
  properties: JsonObject;
}

export type NormalizedRow = { ok: true; row: ImportContactRow } | { ok: false; error: string };

export interface ImportLimits {
  maxBytes: number;
  maxRows: number;
}

/** Fields an export carries that are the contact's own, not properties; ignored on import. */
const SYSTEM_FIELDS = new Set(['id', 'firstSeenAt', 'lastSeenAt', 'createdAt', 'updatedAt']);
const emailSchema = z.email();

function parseCsv(data: string): RawImportRow[] {
  let records: string[][];
  try {
    // bom: strip a UTF-8 byte-order mark; quoted fields may hold commas, quotes and newlines
    records = parse(data, { bom: true, skip_empty_lines: true, relax_column_count: true }) as string[][];
  } catch (error) {
    throw badRequest(`Invalid CSV: ${(error as Error).message}`);
  }
  const [header, ...rows] = records;
  if (header === undefined) throw badRequest('Invalid CSV: no header row');
  const columns = header.map((name) => name.trim());
  if (!columns.includes('externalId')) throw badRequest('Invalid CSV: the header must include an externalId column');
  const duplicate = columns.find((name, index) => columns.indexOf(name) !== index);
  if (duplicate !== undefined) throw badRequest(`Invalid CSV: column "${duplicate}" appears twice in the header`);
  return rows.map((cells) => {
    if (cells.length !== columns.length) return { __error: `expected ${columns.length} columns, found ${cells.length}` };
    const row: RawImportRow = {};
    columns.forEach((name, index) => {
      row[name] = cells[index];
    });
    return row;
  });
}

function parseJson(data: string): RawImportRow[] {
  let value: unknown;
  try {
    value = JSON.parse(data.charCodeAt(0) === 0xfeff ? data.slice(1) : data);
  } catch (error) {
    throw badRequest(`Invalid JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(value)) throw badRequest('Invalid JSON: data must be an array of contact objects');
  return value.map((item: unknown) =>
    typeof item === 'object' && item !== null && !Array.isArray(item) ? (item as RawImportRow) : { __error: 'row is not an object' },
  );
}

/**
 * Parses the whole payload (a real CSV parser: quoted fields, embedded newlines, BOM). A payload
 * that cannot be read at all is a 400; a bad row is not — it is counted and reported per row while
 * the rest imports.
 */
export function parseImportRows(format: ImportFormat, data: string): RawImportRow[] {
  const rows = format === 'csv' ? parseCsv(data) : parseJson(data);
  if (rows.length === 0) throw badRequest('Import data has no rows');
  return rows;
}

/** At submit: the size limits (413 / 400) and then the parse. */
export function parseImportData(format: ImportFormat, data: string, limits: ImportLimits): RawImportRow[] {
  const bytes = Buffer.byteLength(data, 'utf8');
  if (bytes > limits.maxBytes) {
    throw new AppError('payload_too_large', `Import data is ${bytes} bytes; the maximum is ${limits.maxBytes} bytes (IMPORT_MAX_BYTES)`);
  }
  const rows = parseImportRows(format, data);
  if (rows.length > limits.maxRows) throw badRequest(`Import has ${rows.length} rows; the maximum is ${limits.maxRows} (IMPORT_MAX_ROWS)`);
  return rows;
}

function toJson(value: unknown): JsonValue | undefined {
  if (value === undefined) return undefined;
  return JSON.parse(JSON.stringify(value)) as JsonValue;
}

function addProperties(target: JsonObject, source: unknown, csv: boolean): string | undefined {
  let value = source;
  if (csv && typeof source === 'string') {
    if (source.trim() === '') return undefined;
    try {
      value = JSON.parse(source);
    } catch {
      return 'properties is not valid JSON';
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'properties must be an object';
  Object.assign(target, toJson(value));
  return undefined;
}

/**
 * One row → a contact upsert. externalId is required; email, when present, must be valid;
 * every other column goes into properties (a `properties` column holding a JSON object — what
 * the export writes — is spread into them). Empty CSV cells are skipped, so an import never
 * blanks a property.
 */
export function normalizeImportRow(raw: RawImportRow, format: ImportFormat): NormalizedRow {
  if (typeof raw.__error === 'string') return { ok: false, error: raw.__error };
  const csv = format === 'csv';
  const rawId = raw.externalId;
  const externalId = typeof rawId === 'string' ? rawId.trim() : typeof rawId === 'number' ? String(rawId) : '';
  if (externalId === '') return { ok: false, error: 'externalId is required' };

  const row: ImportContactRow = { externalId, properties: {} };
  const rawEmail = raw.email;
  if (rawEmail !== undefined && rawEmail !== null && rawEmail !== '') {
    // the value is not quoted: a job keeps its errors after its uploaded file is emptied, and the
    // value is often someone's address mistyped (docs/security.md, "Personal data and erasure")
    if (typeof rawEmail !== 'string' || !emailSchema.safeParse(rawEmail.trim()).success) return { ok: false, error: 'invalid email' };
    row.email = rawEmail.trim();
  }
  for (const [key, value] of Object.entries(raw)) {
    if (key === 'externalId' || key === 'email' || SYSTEM_FIELDS.has(key) || key === '') continue;
    if (key === 'properties') {
      const problem = addProperties(row.properties, value, csv);
      if (problem !== undefined) return { ok: false, error: problem };
      continue;
    }
    if (csv && value === '') continue;
    const json = toJson(value);
    if (json !== undefined) row.properties[key] = json;
  }
  const problem = contactPropertiesProblem(row.properties, 'properties');
  if (problem !== undefined) return { ok: false, error: problem };
  return { ok: true, row };
}
