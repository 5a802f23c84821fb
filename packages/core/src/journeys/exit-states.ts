import { sql } from 'kysely';
import type { Db } from '../db/database';
import type { AppLogger } from '../logging/logger';
import type { JourneyOrchestrator } from './orchestrator';
import { LIVE_STATUS_LIST } from './live-statuses';

export interface ExitDeps {
  db: Db;
  logger: Pick<AppLogger, 'warn'>;
  orchestrator: JourneyOrchestrator;
}

/**
 * The one exit statement: live states among `ids` become `exited` (with exitedAt) and each gets
 * an `exited` log row, atomically. Returns the states this call moved, so a state that finished
 * or exited concurrently is left alone and reported by its absence.
 */
export async function markStatesExited(db: Db, ids: readonly string[], detail: Record<string, string>): Promise<{ id: string; exitedAt: Date }[]> {
  const result = await sql<{ id: string; exitedAt: Date }>`
    with exited as (
      update journey_states set status = 'exited', exited_at = now(), updated_at = now()
      where id = any(${ids}::uuid[]) and status in ${LIVE_STATUS_LIST}
      returning id, current_node_id, exited_at
    ), logged as (
      insert into journey_logs (journey_state_id, from_node_id, to_node_id, action, detail)
      select id, current_node_id, current_node_id, 'exited', ${JSON.stringify(detail)}::jsonb from exited
    )
    select id, exited_at from exited`.execute(db);
  return result.rows;
}
