import { sql, type RawBuilder } from 'kysely';
import { DEFAULT_EMAIL_CATEGORY } from '@waymark/email/email-template';
import type { PreferenceCategories } from '@waymark/email/preference-categories';
import type { EntryLimit } from '@waymark/journey';
import type { Db } from '../db/database';
import type { JourneyStatus, JsonObject } from '../db/schema';
import { checkSendGate, gateCategory, type SendBlockReason } from '../preferences/send-gate';
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
}

export type EntryRejection = 'entry_limit' | 'already_enrolled' | 'no_email' | SendBlockReason;

export type EnterJourneyResult = { entered: true; stateId: string; userEmail: string } | { entered: false; reason: EntryRejection };

class Rejected extends Error {
  constructor(readonly reason: EntryRejection) {
    super(reason);
  }
}

/**
 * Entry guards, durable under concurrency: preferences (send gate), entry limit (journey_entries
 * primary key) and "already enrolled" (partial unique index journey_states_one_live). The two
 * inserts share a transaction, so a rejected entry never consumes the once-only ledger.
 */
export async function enterJourney(db: Db, input: EnterJourneyInput, categories: Pick<PreferenceCategories, 'find'>): Promise<EnterJourneyResult> {
  // an activity retry after a commit finds its own state
  const existing = await findRunState(db, input.workflowId);
  if (existing !== undefined) return existing;

  let email = input.userEmail.trim();
  if (email === '') {
    const contact = await db.selectFrom('contacts').select('email').where('externalId', '=', input.userId).executeTakeFirst();
    email = contact?.email ?? '';
  }
  if (email === '') return { entered: false, reason: 'no_email' };
  const gate = await checkSendGate(db, email, gateCategory(categories, input.category ?? DEFAULT_EMAIL_CATEGORY));
  if (!gate.allowed) return { entered: false, reason: gate.reason ?? 'suppressed' };

  try {
    return await db.transaction().execute(async (trx) => {
      const entry =
        input.entryLimit === 'once'
          ? await trx
              .insertInto('journeyEntries')
              .values({ journeyId: input.journeyId, userId: input.userId })
              .onConflict((oc) => oc.columns(['journeyId', 'userId']).doNothing())
              .returning('entryCount')
              .executeTakeFirst()
          : await trx
              .insertInto('journeyEntries')
              .values({ journeyId: input.journeyId, userId: input.userId })
              .onConflict((oc) =>
                oc.columns(['journeyId', 'userId']).doUpdateSet({ entryCount: sql`journey_entries.entry_count + 1`, lastEnteredAt: new Date() }),
              )
              .returning('entryCount')
              .executeTakeFirst();
      if (entry === undefined) throw new Rejected('entry_limit');
      const state = await sql<{ id: string }>`
        insert into journey_states (journey_id, user_id, user_email, current_node_id, status, workflow_id, workflow_run_id, context, entry_count, journey_version)
        values (${input.journeyId}, ${input.userId}, ${email}, 'start', 'active', ${input.workflowId}, ${input.runId},
                ${JSON.stringify(input.context)}::jsonb, ${entry.entryCount}, ${input.journeyVersion ?? null})
        on conflict (journey_id, user_id) where status in ${LIVE_STATUS_LIST} do nothing
        returning id`.execute(trx);
      const stateId = state.rows[0]?.id;
      if (stateId === undefined) throw new Rejected('already_enrolled');
      await trx
        .insertInto('journeyLogs')
        .values({ journeyStateId: stateId, fromNodeId: null, toNodeId: 'start', action: 'entered', detail: JSON.stringify(input.context) })
        .execute();
      return { entered: true as const, stateId, userEmail: email };
    });
  } catch (error) {
    // A retry can overlap the attempt it replaces (Temporal retries once the start-to-close
    // timeout passes, even when the first attempt is only slow, e.g. waiting for a pool client on
    // a loaded box). Its inserts then wait for that attempt's transaction and conflict with its
    // rows once it commits: that is this run's own entry, not a rejection. Seen in the chaos run
    // as runs ending "skipped: entry_limit" beside their own live state, whose email never went out.
    if (error instanceof Rejected) return (await findRunState(db, input.workflowId)) ?? { entered: false, reason: error.reason };
    throw error;
  }
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
  const result = await sql<{ id: string }>`with ${journeyStepExpressions(input)} select id from step_logged`.execute(db);
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
  const result = await sql<FinishedState>`
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
