import { sql } from 'kysely';
import type { Db } from '../db/database';
import type { JourneyRegistry } from './registry';

export interface FunnelStep {
  nodeId: string;
  action: string;
  /** distinct enrollments that logged this step at least once */
  enrollments: number;
}

/**
 * Where a journey leaks: for every node and action its runs logged (entered, email_sent,
 * waiting, …), how many enrollments got there, in the order the steps were first reached.
 */
export async function getJourneyFunnel(db: Db, registry: JourneyRegistry, journeyId: string): Promise<FunnelStep[]> {
  registry.get(journeyId);
  const rows = await db
    .selectFrom('journeyLogs as log')
    .innerJoin('journeyStates as state', 'state.id', 'log.journeyStateId')
    .select([
      'log.toNodeId as nodeId',
      'log.action as action',
      sql<string>`count(distinct log.journey_state_id)`.as('enrollments'),
      sql<Date>`min(log.created_at)`.as('firstAt'),
    ])
    .where('state.journeyId', '=', journeyId)
    .groupBy(['log.toNodeId', 'log.action'])
    .orderBy(sql`min(log.created_at)`)
    .execute();
  return rows.map((row) => ({ nodeId: row.nodeId, action: row.action, enrollments: Number(row.enrollments) }));
}
