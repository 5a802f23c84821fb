import { runInKeyedLanes } from '../concurrency/keyed-lanes';
import type { Db } from '../db/database';
import { importCursor, MAX_REPORTED_ERRORS, recordImportChunk, type ImportRowError } from './import-jobs';
import { normalizeImportRow, type ImportContactRow, type ImportFormat, type RawImportRow } from './import-rows';

/** Upserts one contact by externalId (the shared contact upsert of the ingest pipeline). */
export type ImportUpsert = (row: ImportContactRow) => Promise<void>;

export interface ImportChunkInput {
  jobId: string;
  format: ImportFormat;
  rows: readonly RawImportRow[];
  start: number;
  size: number;
  /** errors already on the job, to keep the reported list bounded */
  reportedErrors: number;
  processedRows: number;
  failedRows: number;
}

export interface ImportChunkResult {
  /** rows accounted for after this chunk (the next chunk's start) */
  cursor: number;
  processed: number;
  failed: number;
  /** false when the chunk had already been recorded by an earlier attempt */
  recorded: boolean;
}

/** Rows of one key go through one lane in order; different keys run side by side. */
const LANES = 16;

/**
 * Imports rows [start, start + size). Upserts are idempotent, so a chunk that is replayed after
 * a crash re-applies the same state; the progress counters move once (recordImportChunk).
 */
export async function importChunk(db: Db, upsert: ImportUpsert, input: ImportChunkInput, onProgress: () => void = () => undefined): Promise<ImportChunkResult> {
  const already = importCursor(input);
  if (already > input.start) {
    return { cursor: already, processed: 0, failed: 0, recorded: false };
  }
  const end = Math.min(input.rows.length, input.start + input.size);
  const errors: ImportRowError[] = [];
  const valid: { index: number; row: ImportContactRow }[] = [];
  for (let index = input.start; index < end; index += 1) {
    const normalized = normalizeImportRow(input.rows[index] ?? {}, input.format);
    if (normalized.ok) valid.push({ index, row: normalized.row });
    else errors.push({ row: index + 1, error: normalized.error });
  }
  await runInKeyedLanes(
    valid,
    ({ row }) => row.externalId,
    LANES,
    async ({ index, row }) => {
      try {
        await upsert(row);
      } catch (error) {
        errors.push({ row: index + 1, error: (error as Error).message });
      }
      if (index % 100 === 0) onProgress();
    },
  );
  errors.sort((a, b) => a.row - b.row);
  const failed = errors.length;
  const processed = end - input.start - failed;
  const room = Math.max(0, MAX_REPORTED_ERRORS - input.reportedErrors);
  const recorded = await recordImportChunk(db, { jobId: input.jobId, start: input.start, processed, failed, errors: errors.slice(0, room) });
  return { cursor: end, processed, failed, recorded };
}
