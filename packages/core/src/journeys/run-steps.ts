import { sql, type RawBuilder } from 'kysely';
import type { PreferenceCategories } from '@waymark/email/preference-categories';
import type { EntryLimit } from '@waymark/journey';
import type { Db } from '../db/database';
import { NAMED_STATEMENT } from '../db/named-statements';
import type { JourneyStatus, JsonObject } from '../db/schema';
import { sendCategory } from '../delivery/send-category';
import { sendGateResult, sendGateVerdicts, type GateCategory, type SendBlockReason, type SendGateResult } from '../preferences/send-gate';
import { LIVE_STATUS_LIST } from './live-statuses';

/**
 * What the journey runner's activities do to Postgres: the state row mirrors the run, and
 * every step writes one journey log row. Each function is one statement or one transaction.
 */

export interface EnterJourneyInput {
  journeyId: string;
  userId: string;
  userEmail: string;
  workflowId: string;
  runId: string;
  entryLimit: EntryLimit;
  /** the journey's preference category, checked by the entry guard; `journey` when absent */
  category?: string;
  context: JsonObject;
  /** the run's journey version from its start input (absent for runs started before versions) */
  journeyVersion?: string;
  /** the state's id, when the run chose it (an entry made with the run's first step); else a new one */
  stateId?: string;
  /** the person's arm, for a journey with a goal or a holdout (absent: nothing is counted; migrations/0190) */
  holdout?: boolean;
  /**
   * the person's program-holdout arm for the journey's category (`programHoldoutOfEntry`), decided
   * by the entry activity from the delivery policy; absent when the policy holds none of it out
   * (migrations/0280)
   */
  programHoldout?: boolean;
}

export type EntryRejection = 'entry_limit' | 'already_enrolled' | 'no_email' | SendBlockReason;

export type EnterJourneyResult = { entered: true; stateId: string; userEmail: string } | { entered: false; reason: EntryRejection };

/**
 * Entry guards, durable under concurrency: preferences (send gate), entry limit (journey_entries
 * primary key) and "already enrolled" (partial unique index journey_states_one_live). The ledger,
 * state and log writes are one statement (one round trip and its own transaction; a journey run's
 * entry was seven statements, the most of any step: bench/HISTORY.md), ordered so that a rejected
 * entry leaves nothing behind: see `entryStatement`.
 */
export async function enterJourney(db: Db, input: EnterJourneyInput, categories: Pick<PreferenceCategories, 'find'>): Promise<EnterJourneyResult> {
  const category = sendCategory(categories, input.category);
  const known = await readEntryContext(db, input, category);
  // an activity retry after a commit finds its own state
  if (known.stateId !== null) return { entered: true, stateId: known.stateId, userEmail: known.stateEmail! };
  const email = known.email;
  if (email === '') return { entered: false, reason: 'no_email' };
  if (!known.gate.allowed) return { entered: false, reason: known.gate.reason ?? 'suppressed' };

  const { rows } = await entryStatement(input, email).execute(db);
  const row = rows[0];
  if (row?.stateId != null) return { entered: true, stateId: row.stateId, userEmail: email };
  // A retry can overlap the attempt it replaces (Temporal retries once the start-to-close
  // timeout passes, even when the first attempt is only slow, e.g. waiting for a pool client on
  // a loaded box). Its inserts then wait for that attempt's rows and conflict with them once it
  // commits: that is this run's own entry, not a rejection. Seen in the chaos run as runs ending
  // "skipped: entry_limit" beside their own live state, whose email never went out.
  const reason: EntryRejection = input.entryLimit === 'once' && row?.ledgerTaken !== true ? 'entry_limit' : 'already_enrolled';
  return (await findRunState(db, input.workflowId)) ?? { entered: false, reason };
}

/**
 * The entry's writes as one statement; `stateId` is null when the entry was refused.
 * - `once`: the ledger row first (`on conflict do nothing`: an existing row is the entry limit),
 *   and the state only on a new ledger row. A concurrent entry of the same person waits on the
 *   ledger's primary key and then finds it taken.
 * - `unlimited`: the state first (the live-state index refuses a second live run), then the ledger
 *   count, only for a state that was written, so a refused re-entry does not count.
 */
function entryStatement(input: EnterJourneyInput, email: string) {
  const context = JSON.stringify(input.context);
  const stateColumns = sql`id, journey_id, user_id, user_email, current_node_id, status, workflow_id, workflow_run_id, context, entry_count, journey_version, holdout, program_holdout`;
  const stateValues = (entryCount: RawBuilder<unknown>) =>
    sql`coalesce(${input.stateId ?? null}::uuid, gen_random_uuid()), ${input.journeyId}, ${input.userId}, ${email}, 'start', 'active', ${input.workflowId}, ${input.runId}, ${context}::jsonb, ${entryCount}, ${input.journeyVersion ?? null}, ${input.holdout ?? null}::boolean, ${input.programHoldout ?? null}::boolean`;
  const onLiveConflict = sql`on conflict (journey_id, user_id) where status in ${LIVE_STATUS_LIST} do nothing`;
  const logged = sql`logged as (
      insert into journey_logs (journey_state_id, from_node_id, to_node_id, action, detail)
      select id, null, 'start', 'entered', ${context}::jsonb from state
    )`;
  if (input.entryLimit === 'once')
    return sql<{ stateId: string | null; ledgerTaken: boolean }>`${NAMED_STATEMENT}
      with entry as (
        insert into journey_entries (journey_id, user_id) values (${input.journeyId}, ${input.userId})
        on conflict (journey_id, user_id) do nothing
        returning entry_count
      ), state as (
        insert into journey_states (${stateColumns}) select ${stateValues(sql`entry.entry_count`)} from entry
        ${onLiveConflict}
        returning id
      ), ${logged}
      select (select id from state) as "stateId", exists (select 1 from entry) as "ledgerTaken"`;
  return sql<{ stateId: string | null; ledgerTaken: boolean }>`${NAMED_STATEMENT}
    with state as (
      insert into journey_states (${stateColumns})
      values (${stateValues(sql`coalesce((select entry_count from journey_entries where journey_id = ${input.journeyId} and user_id = ${input.userId}), 0) + 1`)})
      ${onLiveConflict}
      returning id
    ), entry as (
      insert into journey_entries (journey_id, user_id) select ${input.journeyId}, ${input.userId} from state
      on conflict (journey_id, user_id) do update set entry_count = journey_entries.entry_count + 1, last_entered_at = now()
    ), ${logged}
    select (select id from state) as "stateId", true as "ledgerTaken"`;
}

/**
 * What an entry reads before it writes, in ONE statement: the run's own state (a retried entry),
 * the address (the event's, else the contact's) and the send gate for it. One statement because
 * each read on its own would be a round trip and a plan, and every enrollment makes an entry.
 */
async function readEntryContext(
  db: Db,
  input: EnterJourneyInput,
  category: GateCategory,
): Promise<{ stateId: string | null; stateEmail: string | null; email: string; gate: SendGateResult }> {
  const given = input.userEmail.trim();
  const { rows } = await sql<{
    stateId: string | null;
    stateEmail: string | null;
    contactEmail: string | null;
    suppressed: boolean | null;
    unsubscribedAll: boolean | null;
    categoryOff: boolean | null;
  }>`${NAMED_STATEMENT}
    select own.id as "stateId", own.user_email as "stateEmail", contact.email as "contactEmail", gate.*
    from (select 1) as one
    left join journey_states own on own.workflow_id = ${input.workflowId}
    left join contacts contact on ${given} = '' and contact.external_id = ${input.userId}
    cross join lateral (
      select ${sql.join(sendGateVerdicts(category, sql<string>`coalesce(nullif(${given}, ''), contact.email)`))} from email_preferences
      where lower(email) = lower(coalesce(nullif(${given}, ''), contact.email))
    ) as gate`.execute(db);
  const { stateId, stateEmail, contactEmail, ...verdicts } = rows[0]!;
  return { stateId, stateEmail, email: given === '' ? (contactEmail ?? '') : given, gate: sendGateResult(verdicts, category) };
}

async function findRunState(db: Db, workflowId: string): Promise<EnterJourneyResult | undefined> {
  const row = await db.selectFrom('journeyStates').select(['id', 'userEmail']).where('workflowId', '=', workflowId).executeTakeFirst();
  return row === undefined ? undefined : { entered: true, stateId: row.id, userEmail: row.userEmail };
}

export interface JourneyStepInput {
  stateId: string;
  toNodeId: string;
  action: string;
  /** new status; omitted keeps the current one */
  status?: 'active' | 'waiting';
  detail?: JsonObject;
  /** merged onto the state's context (null values remove nothing; use explicit keys) */
  context?: JsonObject;
}

/**
 * Moves a live state to a node and logs the step in one statement. Returns false when the state
 * is no longer live (exited by an exit rule or an admin), so the run can stop sending.
 */
export async function recordJourneyStep(db: Db, input: JourneyStepInput): Promise<boolean> {
  const result = await sql<{ id: string }>`${NAMED_STATEMENT} with ${journeyStepExpressions(input)} select id from step_logged`.execute(db);
  return result.rows.length > 0;
}

/**
 * recordJourneyStep's work as common table expressions (`step_logged` returns the log's id), for
 * a statement that does more in the same round trip: the journey send's sent update
 * (deliver-journey-email.ts).
 */
export function journeyStepExpressions(input: JourneyStepInput): RawBuilder<unknown> {
  return sql`
    step_previous as (
      select current_node_id from journey_states where id = ${input.stateId} and status in ${LIVE_STATUS_LIST}
    ), step_moved as (
      update journey_states set
        current_node_id = ${input.toNodeId},
        status = coalesce(${input.status ?? null}, status),
        context = context || ${JSON.stringify(input.context ?? {})}::jsonb,
        updated_at = now()
      where id = ${input.stateId} and status in ${LIVE_STATUS_LIST}
      returning id
    ), step_logged as (
      insert into journey_logs (journey_state_id, from_node_id, to_node_id, action, detail)
      select ${input.stateId}, (select current_node_id from step_previous), ${input.toNodeId}, ${input.action},
             ${input.detail === undefined ? null : JSON.stringify(input.detail)}::jsonb
      where exists (select 1 from step_moved)
      returning id
    )`;
}

export interface FinishRunInput {
  stateId: string;
  status: Extract<JourneyStatus, 'completed' | 'failed' | 'exited'>;
  errorMessage?: string;
  detail?: JsonObject;
}

export interface FinishedState {
  /** the state's status after the call (an exit rule may have ended it first) */
  status: JourneyStatus;
  userId: string;
  userEmail: string;
  journeyId: string;
  workflowId: string;
  currentNodeId: string;
  createdAt: Date;
}

/** Ends the state (completed/failed/exited + timestamps) and logs it; idempotent. */
export async function finishJourneyRun(db: Db, input: FinishRunInput): Promise<FinishedState> {
  const detail = JSON.stringify({ ...(input.detail ?? {}), ...(input.errorMessage === undefined ? {} : { error: input.errorMessage }) });
  const result = await sql<FinishedState>`${NAMED_STATEMENT}
    with finished as (
      update journey_states set
        status = ${input.status},
        completed_at = case when ${input.status} = 'completed' then now() else completed_at end,
        exited_at = case when ${input.status} = 'exited' then now() else exited_at end,
        error_message = ${input.errorMessage ?? null},
        context = context - 'waitingFor',
        updated_at = now()
      where id = ${input.stateId} and status in ${LIVE_STATUS_LIST}
      returning id, current_node_id
    ), logged as (
      insert into journey_logs (journey_state_id, from_node_id, to_node_id, action, detail)
      select id, current_node_id, current_node_id, ${input.status}, ${detail}::jsonb from finished
    )
    select coalesce((select ${input.status}::text from finished), s.status) as status, s.user_id, s.user_email, s.journey_id, s.workflow_id,
           s.current_node_id, s.created_at
    from journey_states s where s.id = ${input.stateId}`.execute(db);
  const row = result.rows[0];
  if (row === undefined) throw new Error(`journey state ${input.stateId} not found`);
  return row;
}
