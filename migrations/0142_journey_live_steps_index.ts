import { sql, type Kysely } from 'kysely';

/**
 * A journey's detail (`GET /v1/admin/journeys/{id}`) shows its running versions: every live state
 * grouped by (version, node, status), with the newest start of each version
 * (`packages/core/src/journeys/running-versions.ts`). Read from the table, that visited every live
 * state's row: 40k of them at 100k states was a bitmap heap scan of 2,165 pages, 71 ms at load 9;
 * from this index, which holds exactly those columns of live states only, it is an index-only scan
 * already in group order, 10 ms at the same load (docs/scaling.md, "Admin lists at 1M events").
 *
 * What it costs a run: one more index entry when a state is inserted or a live state is updated.
 * A step update is not a HOT update anyway (it sets `updated_at`, which
 * journey_states_failed_updated_idx indexes, and `current_node_id`), so no update loses HOT; a
 * finished state leaves the index. Measured: ~45 µs per step update at load 9 (212 vs 168 µs).
 *
 * Built under a SHARE lock: writers to journey_states wait while it builds (0.26 s for 100k states,
 * 40k of them live, at load 9).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create index journey_states_live_steps_idx on journey_states (journey_id, journey_version, current_node_id, status) include (created_at)
      where status in ('active', 'waiting');
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists journey_states_live_steps_idx`.execute(db);
}
