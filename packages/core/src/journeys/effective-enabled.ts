import type { Db } from '../db/database';
import type { JourneyRegistry } from './registry';

/** The admin override takes precedence over the code default. */
export function effectiveEnabled(registry: JourneyRegistry, id: string, override: boolean | undefined): boolean {
  return override ?? registry.codeEnabled(id);
}

export async function loadOverrides(db: Db, ids?: readonly string[]): Promise<Map<string, { enabled: boolean; updatedAt: Date }>> {
  if (ids !== undefined && ids.length === 0) return new Map();
  let query = db.selectFrom('journeyOverrides').select(['journeyId', 'enabled', 'updatedAt']);
  if (ids !== undefined) query = query.where('journeyId', 'in', ids);
  const rows = await query.execute();
  return new Map(rows.map((row) => [row.journeyId, { enabled: row.enabled, updatedAt: row.updatedAt }]));
}

/** Persists the override; effective on the next trigger, in-flight runs untouched. */
export async function setJourneyEnabled(db: Db, journeyId: string, enabled: boolean, updatedBy: string | null): Promise<{ updatedAt: Date }> {
  const row = await db
    .insertInto('journeyOverrides')
    .values({ journeyId, enabled, updatedBy })
    .onConflict((oc) => oc.column('journeyId').doUpdateSet({ enabled, updatedBy, updatedAt: new Date() }))
    .returning('updatedAt')
    .executeTakeFirstOrThrow();
  return row;
}
