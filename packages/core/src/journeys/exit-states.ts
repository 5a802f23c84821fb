import { sql } from 'kysely';
import type { Db } from '../db/database';
import type { AppLogger } from '../logging/logger';
import type { JourneyOrchestrator } from './orchestrator';

export interface ExitDeps {
  db: Db;
  logger: Pick<AppLogger, 'warn'>;
  orchestrator: JourneyOrchestrator;
}

/**
 * Marks live states `exited` (with exitedAt and an `exited` log row) in one statement, then asks
 * the orchestrator to cancel their runs. Returns the ids that this call moved to exited.
 */
export async function exitStates(deps: ExitDeps, states: readonly { id: string; workflowId: string }[], detail: Record<string, string>): Promise<Set<string>> {
  const ids = states.map((state) => state.id);
  const result = await sql<{ id: string }>`
    with exited as (
      update journey_states set status = 'exited', exited_at = now(), updated_at = now()
      where id = any(${ids}::uuid[]) and status in ('active', 'waiting')
      returning id, current_node_id
    ), logged as (
      insert into journey_logs (journey_state_id, from_node_id, to_node_id, action, detail)
      select id, current_node_id, current_node_id, 'exited', ${JSON.stringify(detail)}::jsonb from exited
    )
    select id from exited`.execute(deps.db);
  const exited = new Set(result.rows.map((row) => row.id));
  await Promise.all(
    states
      .filter((state) => exited.has(state.id))
      .map((state) =>
        deps.orchestrator.cancelRun(state.workflowId).catch((error: unknown) => {
          deps.logger.warn({ err: error, workflowId: state.workflowId }, 'could not cancel exited journey run');
          return false;
        }),
      ),
  );
  return exited;
}
