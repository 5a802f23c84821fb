import { sql } from 'kysely';
import type { Db } from '../db/database';
import { LIVE_STATUS_LIST } from './live-statuses';

/** One version of a journey with running enrollments, and the steps those runs are at. */
export interface RunningVersion {
  /** null: runs started before versions were recorded */
  version: string | null;
  running: number;
  /** most populated step first, e.g. 1,204 `waiting` at `sleep:2 days` */
  steps: { nodeId: string; status: 'active' | 'waiting'; count: number }[];
  /** when the newest run of this version started (versions are listed newest first) */
  lastStartedAt: Date;
}

/** Where a journey's live runs are, per version: the journey page's table and `journeys check`'s plan. */
export async function runningVersions(db: Db, journeyId: string): Promise<RunningVersion[]> {
  const { rows } = await sql<{ version: string | null; nodeId: string; status: 'active' | 'waiting'; count: number; lastStartedAt: Date }>`
    select journey_version as version, current_node_id as "nodeId", status, count(*)::int as count, max(created_at) as "lastStartedAt"
    from journey_states where journey_id = ${journeyId} and status in ${LIVE_STATUS_LIST}
    group by 1, 2, 3`.execute(db);
  const byVersion = new Map<string | null, RunningVersion>();
  for (const row of rows) {
    const entry = byVersion.get(row.version) ?? { version: row.version, running: 0, steps: [], lastStartedAt: row.lastStartedAt };
    entry.running += row.count;
    entry.steps.push({ nodeId: row.nodeId, status: row.status, count: row.count });
    if (row.lastStartedAt > entry.lastStartedAt) entry.lastStartedAt = row.lastStartedAt;
    byVersion.set(row.version, entry);
  }
  const versions = [...byVersion.values()].sort((a, b) => b.lastStartedAt.getTime() - a.lastStartedAt.getTime());
  for (const version of versions) version.steps.sort((a, b) => b.count - a.count || a.nodeId.localeCompare(b.nodeId));
  return versions;
}

/** A live run whose history a version check replays. */
export interface LiveRun {
  journeyId: string;
  version: string | null;
  userId: string;
  workflowId: string;
  runId: string;
  nodeId: string;
}

/**
 * The journey's live runs of every version but `except` (the working tree's: those runs already
 * replay on the same code; undefined: every version), oldest first; at most `sample` per version when given.
 */
export async function liveRunsOtherThan(db: Db, journeyId: string, except: string | null | undefined, sample?: number): Promise<LiveRun[]> {
  const { rows } = await sql<LiveRun>`
    select journey_id as "journeyId", journey_version as version, user_id as "userId", workflow_id as "workflowId",
           coalesce(workflow_run_id, '') as "runId", current_node_id as "nodeId"
    from (
      select s.*, row_number() over (partition by journey_version order by created_at, id) as nth
      from journey_states s
      where journey_id = ${journeyId} and status in ${LIVE_STATUS_LIST}
        and ${except === undefined ? sql`true` : sql`journey_version is distinct from ${except}`}
    ) ranked
    where ${sample === undefined ? sql`true` : sql`nth <= ${sample}`}
    order by journey_version nulls first, nth`.execute(db);
  return rows;
}

/** Journeys with at least one live run (the ones a version check looks at). */
export async function journeysWithLiveRuns(db: Db): Promise<string[]> {
  const { rows } = await sql<{ journeyId: string }>`
    select distinct journey_id as "journeyId" from journey_states where status in ${LIVE_STATUS_LIST} order by 1`.execute(db);
  return rows.map((row) => row.journeyId);
}
