import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Config } from '@waymark/core/config/config';
import type { Db } from '@waymark/core/db/database';
import { recordDeadLetter } from '@waymark/core/dlq/dead-letters';
import { importChunk, type ImportUpsert } from '@waymark/core/imports/import-chunk';
import { finishImportJob, getImportData, getImportProgress, importCursor, markImportProcessing } from '@waymark/core/imports/import-jobs';
import { parseImportRows, type RawImportRow } from '@waymark/core/imports/import-rows';
import { isAppError } from '@waymark/core/errors/app-error';

export interface ImportActivityDeps {
  db: Db;
  config: Pick<Config, 'imports'>;
  /** the shared contact upsert (by externalId), adapted to an import row */
  upsertImportRow: ImportUpsert;
}

export interface ImportPlan {
  totalRows: number;
  cursor: number;
  chunkSize: number;
  finished: boolean;
}

/** Parsed payloads of the jobs this worker is running; re-parsed after a restart. */
function createParsedCache(size: number) {
  const cache = new Map<string, RawImportRow[]>();
  return async (jobId: string, parse: () => Promise<RawImportRow[]>): Promise<RawImportRow[]> => {
    const hit = cache.get(jobId);
    if (hit !== undefined) return hit;
    const rows = await parse();
    cache.set(jobId, rows);
    while (cache.size > size) cache.delete(cache.keys().next().value as string);
    return rows;
  };
}

export function createImportActivities(deps: ImportActivityDeps) {
  const parsed = createParsedCache(2);

  return {
    async startContactImport(jobId: string): Promise<ImportPlan> {
      const job = await markImportProcessing(deps.db, jobId);
      const cursor = importCursor(job);
      return {
        totalRows: job.totalRows,
        cursor,
        chunkSize: deps.config.imports.chunkSize,
        finished: job.status === 'completed' || job.status === 'failed',
      };
    },

    async importContactsChunk(input: { jobId: string; start: number; size: number }): Promise<number> {
      // progress only: the payload (up to IMPORT_MAX_BYTES) is read when this worker has not parsed it yet
      const job = await getImportProgress(deps.db, input.jobId);
      let rows: RawImportRow[];
      try {
        rows = await parsed(job.id, async () => parseImportRows(job.format, await getImportData(deps.db, job.id)));
      } catch (error) {
        if (isAppError(error)) throw ApplicationFailure.nonRetryable(error.message, 'InvalidImport');
        throw error;
      }
      const context = Context.current();
      const result = await importChunk(
        deps.db,
        deps.upsertImportRow,
        { ...input, format: job.format, rows, reportedErrors: job.errors.length, processedRows: job.processedRows, failedRows: job.failedRows },
        () => context.heartbeat(),
      );
      return result.cursor;
    },

    async finishContactImport(input: { jobId: string; error?: string; cancelled?: boolean }): Promise<void> {
      if (input.error === undefined) {
        await finishImportJob(deps.db, input.jobId, 'completed');
        return;
      }
      await finishImportJob(deps.db, input.jobId, 'failed', input.error);
      // an operator's cancel is not a failure to retry
      if (input.cancelled !== true)
        await recordDeadLetter(deps.db, { source: 'import', sourceId: input.jobId, payload: { jobId: input.jobId }, error: input.error });
    },
  };
}

export type ImportActivities = ReturnType<typeof createImportActivities>;
