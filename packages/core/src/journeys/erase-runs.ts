import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/database';

/** What an erased person's run keeps of its trigger (its event, id and time: nothing about them). */
const keptContext = (column: string) =>
  sql.raw(`case when ${column} ? 'trigger' then jsonb_build_object('trigger', ${column}->'trigger') else '{}'::jsonb end`);

/**
 * For an erasure: the person's journey records keep what the journeys' figures need (each state,
 * its status, steps, arm and conversion, so counts, outcomes and lift stay right) and lose what
 * names them: the user id and the workflow id (`journey:<journey>:<user id>:<event>`) become
 * `erased:<state id>`, the address and the trigger's properties go
 * (from the state and its `entered` log), a failure's text becomes `[erased]` (the state's error,
 * a log's `error`, an `email_failed` log's `reason`: a provider's refusal quotes the address, a
 * template's refusal the data), and the entry ledger forgets them, so a later sign-up is a new person.
 * Live states must have been exited first. Answers the runs' former workflow ids, for the caller to
 * delete from Temporal once the erasure has committed (`deleteRuns`).
 */
export async function eraseRunsOf(db: Db, userIds: RawBuilder<string[]>): Promise<string[]> {
  const { rows } = await sql<{ workflowId: string }>`
    with person as (
      select id, workflow_id from journey_states where user_id = any(${userIds}) for update
    ), erased as (
      update journey_states s set
        user_id = 'erased:' || s.id,
        user_email = '',
        workflow_id = 'erased:' || s.id,
        context = ${keptContext('s.context')},
        error_message = case when s.error_message is null then null else '[erased]' end,
        updated_at = now()
      from person where s.id = person.id
      returning s.id, person.workflow_id
    ), logs as (
      update journey_logs set detail = case
        when action = 'entered' then ${keptContext('detail')}
        else detail || jsonb_strip_nulls(jsonb_build_object(
          'error', case when detail ? 'error' then '[erased]' end,
          'reason', case when action = 'email_failed' and detail ? 'reason' then '[erased]' end))
      end
      where journey_state_id in (select id from erased) and (action = 'entered' or detail ? 'error' or (action = 'email_failed' and detail ? 'reason'))
    ), ledger as (
      delete from journey_entries where user_id = any(${userIds})
    )
    select workflow_id as "workflowId" from erased`.execute(db);
  return rows.map((row) => row.workflowId);
}
