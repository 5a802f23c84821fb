import { sql } from 'kysely';
import type { Db } from '../db/database';
import type { ImportJobRow, ImportStatus } from '../db/schema';
import type { BackgroundJobs } from '../jobs/background-jobs';
import { finishJobRow, jobNotFound, recordJobChunk, startJobRun, type JobRows } from '../jobs/job-rows';
import { parseImportData, type ImportFormat, type ImportLimits } from './import-rows';

export interface ImportRowError {
  row: number;
  error: string;
}

/** An import job as GET /v1/admin/contacts/import/{jobId} returns it (docs/operations.md). */
export interface ImportJob {
  id: string;
  status: ImportStatus;
  totalRows: number;
  processedRows: number;
  failedRows: number;
  errors: ImportRowError[];
}

/** Import jobs in the shared job-row lifecycle (jobs/job-rows.ts). */
const importRows: JobRows = {
  kind: 'contact-import',
  table: 'importJobs',
  noun: 'import',
  counters: { processed: 'processedRows', failed: 'failedRows' },
  errorEntry: (error) => ({ row: 0, error }),
};

/** Row errors kept on the job; failedRows stays exact beyond it. */
export const MAX_REPORTED_ERRORS = 1_000;

/** Everything a job row holds but its payload (up to IMPORT_MAX_BYTES, read only to parse it). */
const PROGRESS_COLUMNS = ['id', 'status', 'format', 'totalRows', 'processedRows', 'failedRows', 'errors'] as const;
export type ImportProgress = Pick<ImportJobRow, (typeof PROGRESS_COLUMNS)[number]>;

function toImportJob(row: ImportProgress): ImportJob {
  return {
    id: row.id,
    status: row.status,
    totalRows: row.totalRows,
    processedRows: row.processedRows,
    failedRows: row.failedRows,
    errors: row.errors,
  };
}

export interface CreateImportJobInput {
  format: ImportFormat;
  data: string;
  fileName?: string | undefined;
  createdBy: string | null;
}

/** Validates the payload as a whole (400/413 now, not later) and stores it as a pending job. */
export async function createImportJob(db: Db, input: CreateImportJobInput, limits: ImportLimits): Promise<ImportJob> {
  const rows = parseImportData(input.format, input.data, limits);
  const row = await db
    .insertInto('importJobs')
    .values({
      format: input.format,
      data: input.data,
      fileName: input.fileName ?? null,
      totalRows: rows.length,
      createdBy: input.createdBy,
      errors: JSON.stringify([]),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toImportJob(row);
}

/** Stores the job and starts its durable run (a run that cannot start fails the job and answers 503). */
export async function startImportJob(deps: { db: Db; jobs: BackgroundJobs }, input: CreateImportJobInput, limits: ImportLimits): Promise<ImportJob> {
  const job = await createImportJob(deps.db, input, limits);
  await startJobRun(deps, importRows, job.id);
  return job;
}

export async function getImportProgress(db: Db, id: string): Promise<ImportProgress> {
  const row = await db.selectFrom('importJobs').select(PROGRESS_COLUMNS).where('id', '=', id).executeTakeFirst();
  if (row === undefined) throw jobNotFound(importRows);
  return row;
}

export async function getImportJob(db: Db, id: string): Promise<ImportJob> {
  return toImportJob(await getImportProgress(db, id));
}

export async function getImportData(db: Db, id: string): Promise<string> {
  const row = await db.selectFrom('importJobs').select('data').where('id', '=', id).executeTakeFirst();
  if (row === undefined) throw jobNotFound(importRows);
  return row.data;
}

/** Rows already accounted for: where a (re)started run resumes. */
export function importCursor(job: Pick<ImportJob, 'processedRows' | 'failedRows'>): number {
  return job.processedRows + job.failedRows;
}

export async function markImportProcessing(db: Db, id: string): Promise<ImportProgress> {
  const row = await db
    .updateTable('importJobs')
    .set({ status: 'processing', startedAt: sql<Date>`coalesce(started_at, now())`, updatedAt: new Date() })
    .where('id', '=', id)
    .where('status', 'in', ['pending', 'processing'])
    .returning(PROGRESS_COLUMNS)
    .executeTakeFirst();
  return row ?? getImportProgress(db, id);
}

export async function recordImportChunk(
  db: Db,
  input: { jobId: string; start: number; processed: number; failed: number; errors: ImportRowError[] },
): Promise<boolean> {
  return recordJobChunk(db, importRows, input);
}

/**
 * Ends the job and gives up its uploaded file: every row's ids, addresses and properties, needed
 * only to read the rows while it runs (a job that failed is submitted again, never resumed from it).
 */
export async function finishImportJob(db: Db, id: string, status: 'completed' | 'failed', error?: string): Promise<void> {
  await finishJobRow(db, importRows, id, status, error);
  await db.updateTable('importJobs').set({ data: '' }).where('id', '=', id).execute();
}
