import { sql, type Kysely } from 'kysely';

/**
 * journey_states.journey_version: the version of the journey's code a run started under (a short
 * content hash, docs/journeys.md "Changing a live journey"). Runs started before stay null: their
 * version is unknown, and `waymark journeys check` replays them all.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // no index: the journey page's per-version counts read one journey's live states, which the
  // existing (journey_id, user_id) live index already narrows; each step's write stays as cheap
  await sql`alter table journey_states add column journey_version text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table journey_states drop column journey_version`.execute(db);
}
