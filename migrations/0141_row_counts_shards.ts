import { sql, type Kysely } from 'kysely';
import { rowCountsChange } from './0070_row_counters';

const COUNTED_TABLES = ['events', 'contacts', 'email_sends', 'audit_logs'] as const;

/**
 * 64 shards per counted table instead of 16 (docs/scaling.md, "Admin lists at 1M events"). A
 * writer updates the shard of its backend's pid until it commits, so two connections whose pids
 * share a shard take turns, each waiting for the other's commit: pgbench, 4 connections of
 * single-row INSERTs into events, inserted ~540 rows/s all on one shard against ~1,100 on shards
 * of their own (2-core box, load 12). With 16 shards, 4 connections share one a third of the time
 * and an ingest pool of 10 almost always; with 64, about 1 time in 11 for 4. Reading a total sums
 * 64 rows instead of 16 (well under a millisecond). The new shards start at 0, so every total
 * stays what it was.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    insert into row_counts (table_name, shard, n)
      select t, shard, 0 from unnest(${sql.lit(`{${COUNTED_TABLES.join(',')}}`)}::text[]) t, generate_series(16, 63) shard
      on conflict (table_name, shard) do nothing;
    ${rowCountsChange(64)};
  `.execute(db);
}

/** Back to 16 shards: the counts of shards 16–63 are folded into shard 0 while writers wait. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    lock table row_counts in exclusive mode;
    ${rowCountsChange(16)};
    update row_counts c set n = c.n + f.n
      from (select table_name, sum(n) as n from row_counts where shard >= 16 group by table_name) f
      where c.table_name = f.table_name and c.shard = 0;
    delete from row_counts where shard >= 16;
  `.execute(db);
}
