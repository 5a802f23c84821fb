import { sql } from 'kysely';
import type { Db } from '../db/database';
import type { JourneyStatus, JsonObject } from '../db/schema';
import { conflict, notFound } from '../errors/app-error';
import { cancelRuns, markStatesExited, type ExitDeps } from './exit-states';
import { pageWithTotal, paginate } from '../db/paginate';

export const journeyStatuses = ['active', 'waiting', 'completed', 'failed', 'exited'] as const satisfies readonly JourneyStatus[];
const TERMINAL: readonly JourneyStatus[] = ['completed', 'failed', 'exited'];

export interface JourneyState {
  id: string;
  userId: string;
  userEmail: string;
  journeyId: string;
  currentNodeId: string;
  status: JourneyStatus;
  workflowId: string;
  workflowRunId: string;
  context: JsonObject;
  errorMessage: string | null;
  entryCount: number;
  completedAt: Date | null;
  exitedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  /** the journey's version when the run started; null for runs from before versions */
  journeyVersion: string | null;
  /** the person's arm: true held out, false treatment, null when the journey measures nothing (docs/journeys.md, "Goals, holdouts and lift") */
  holdout: boolean | null;
  convertedAt: Date | null;
  conversionValue: number | null;
  conversionEventId: string | null;
}

export interface JourneyLog {
  id: string;
  fromNodeId: string | null;
  toNodeId: string;
  action: string;
  detail: JsonObject | null;
  createdAt: Date;
}

export type JourneyCounts = Record<JourneyStatus, number>;

function selectStates(db: Db) {
  return db
    .selectFrom('journeyStates')
    .select([
      'id',
      'userId',
      'userEmail',
      'journeyId',
      'currentNodeId',
      'status',
      'workflowId',
      sql<string>`coalesce(workflow_run_id, '')`.as('workflowRunId'),
      'context',
      'errorMessage',
      'entryCount',
      'completedAt',
      'exitedAt',
      'createdAt',
      'updatedAt',
      'journeyVersion',
      'holdout',
      'convertedAt',
      sql<number | null>`conversion_value::float8`.as('conversionValue'),
      'conversionEventId',
    ]);
}

export interface StateListQuery {
  journeyId: string;
  limit: number;
  offset: number;
  status?: JourneyStatus | undefined;
  userId?: string | undefined;
}

export async function listJourneyStates(db: Db, query: StateListQuery): Promise<{ states: JourneyState[]; total: number }> {
  let page = selectStates(db).where('journeyId', '=', query.journeyId);
  if (query.status !== undefined) page = page.where('status', '=', query.status);
  if (query.userId !== undefined) page = page.where('userId', '=', query.userId);
  page = page.orderBy('createdAt', 'desc').orderBy('id', 'desc');
  // a journey (and status) alone is counted by the status counters; a user has a handful of states
  if (query.userId === undefined) return renamed(await pageWithTotal(page, countStatesOf(db, query.journeyId, query.status), query));
  let base = db.selectFrom('journeyStates').where('journeyId', '=', query.journeyId).where('userId', '=', query.userId);
  if (query.status !== undefined) base = base.where('status', '=', query.status);
  return renamed(await paginate(page, base, query));
}

function renamed({ rows, total }: { rows: JourneyState[]; total: number }): { states: JourneyState[]; total: number } {
  return { states: rows, total };
}

export async function recentJourneyStates(db: Db, journeyId: string, limit = 10): Promise<JourneyState[]> {
  const rows = await selectStates(db).where('journeyId', '=', journeyId).orderBy('createdAt', 'desc').orderBy('id', 'desc').limit(limit).execute();
  return rows;
}

export async function findJourneyState(db: Db, stateId: string): Promise<JourneyState | undefined> {
  const row = await selectStates(db).where('id', '=', stateId).executeTakeFirst();
  return row === undefined ? undefined : row;
}

/** 404 when the state is missing or belongs to another journey. */
export async function getJourneyState(db: Db, journeyId: string | undefined, stateId: string): Promise<JourneyState> {
  const state = await findJourneyState(db, stateId);
  if (state === undefined || (journeyId !== undefined && state.journeyId !== journeyId)) throw notFound('Journey state not found');
  return state;
}

/** Logs in chronological order. */
export async function listJourneyLogs(db: Db, stateId: string): Promise<JourneyLog[]> {
  const rows = await db
    .selectFrom('journeyLogs')
    .select(['id', 'fromNodeId', 'toNodeId', 'action', 'detail', 'createdAt'])
    .where('journeyStateId', '=', stateId)
    .orderBy('createdAt', 'asc')
    .orderBy('id', 'asc')
    .execute();
  return rows;
}

export function emptyCounts(): JourneyCounts {
  return { active: 0, waiting: 0, completed: 0, failed: 0, exited: 0 };
}

/** How many states a journey has (in one status, when given), from the status counters. */
async function countStatesOf(db: Db, journeyId: string, status: JourneyStatus | undefined): Promise<number> {
  let query = db
    .selectFrom('journeyStateCounts')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('n'), eb.lit(0)).as('n'))
    .where('journeyId', '=', journeyId);
  if (status !== undefined) query = query.where('status', '=', status);
  const row = await query.executeTakeFirstOrThrow();
  return row.n;
}

/**
 * Status counts per journey, exact, from the counters triggers keep per (journey, status)
 * (migration 0070): a few rows per journey instead of a count over every state.
 */
export async function countJourneyStates(db: Db, journeyIds: readonly string[]): Promise<Map<string, JourneyCounts>> {
  const counts = new Map(journeyIds.map((id) => [id, emptyCounts()]));
  if (journeyIds.length === 0) return counts;
  const rows = await db
    .selectFrom('journeyStateCounts')
    .select(['journeyId', 'status', (eb) => eb.fn.sum<number>('n').as('n')])
    .where('journeyId', 'in', journeyIds)
    .groupBy(['journeyId', 'status'])
    .execute();
  for (const row of rows) {
    const entry = counts.get(row.journeyId);
    if (entry !== undefined) entry[row.status] = row.n;
  }
  return counts;
}

/** DELETE of a live state → exited + cancel the run; terminal states → 409. */
export async function cancelJourneyState(
  deps: ExitDeps,
  journeyId: string,
  stateId: string,
): Promise<{ state: { id: string; status: 'exited'; exitedAt: Date }; workflowCancelled: boolean }> {
  const state = await getJourneyState(deps.db, journeyId, stateId);
  if (TERMINAL.includes(state.status)) throw conflict(`Cannot cancel journey in '${state.status}' status`);
  const [row] = await markStatesExited(deps.db, [stateId], { reason: 'cancelled' });
  if (row === undefined) {
    // finished between the read and the update
    const now = await getJourneyState(deps.db, journeyId, stateId);
    throw conflict(`Cannot cancel journey in '${now.status}' status`);
  }
  const workflowCancelled = (await cancelRuns(deps, [state.workflowId])) === 1;
  return { state: { id: stateId, status: 'exited', exitedAt: row.exitedAt }, workflowCancelled };
}
