import { sql, type Kysely } from 'kysely';

/**
 * An import's uploaded file (import_jobs.data: every row's ids, addresses and properties) is kept
 * only while its job runs (imports/import-jobs.ts, finishImportJob): the jobs that have already
 * ended give theirs up here. Import jobs are few, so the update is small.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`update import_jobs set data = '' where status in ('completed', 'failed') and data <> ''`.execute(db);
}

export async function down(): Promise<void> {
  // the files are gone: nothing to put back
}
