import type { Journey, PropertyCondition, QuietHours } from '@waymark/journey';
import type { Db } from '../db/database';
import { countJourneyStates, emptyCounts, recentJourneyStates, type JourneyCounts, type JourneyState } from './journey-states';
import { effectiveEnabled, loadOverrides, setJourneyEnabled } from './effective-enabled';
import type { JourneyRegistry } from './registry';
import { runningVersions, type RunningVersion } from './running-versions';

export interface JourneySummary {
  id: string;
  name: string;
  description: string;
  enabled: boolean;
  trigger: Journey['trigger'];
  entryLimit: string;
  counts: JourneyCounts;
}

export interface JourneyDetail extends Omit<JourneySummary, 'description'> {
  exitOn: Journey['exitOn'];
  suppress: { hours: number } | null;
  quietHours: QuietHours | null;
  /** what converting means (docs/journeys.md, "Goals, holdouts and lift"); `within` as written */
  goal: { event: string; within: string; where: PropertyCondition[]; exitOnGoal: boolean } | null;
  holdout: { percent: number } | null;
  recentStates: JourneyState[];
  /** this deployment's version of the journey's code (null when the process could not read it) */
  version: string | null;
  /** the versions that still have running enrollments, newest first, with where those runs are */
  runningVersions: RunningVersion[];
}

export async function listJourneys(
  db: Db,
  registry: JourneyRegistry,
  query: { limit: number; offset: number; enabled?: boolean | undefined },
): Promise<{ journeys: JourneySummary[]; total: number }> {
  const overrides = await loadOverrides(db);
  const all = registry
    .all()
    .map((journey) => ({ journey, enabled: effectiveEnabled(registry, journey.id, overrides.get(journey.id)?.enabled) }))
    .filter((entry) => query.enabled === undefined || entry.enabled === query.enabled);
  const page = all.slice(query.offset, query.offset + query.limit);
  const counts = await countJourneyStates(
    db,
    page.map((entry) => entry.journey.id),
  );
  return {
    total: all.length,
    journeys: page.map(({ journey, enabled }) => ({
      id: journey.id,
      name: journey.name,
      description: journey.description,
      enabled,
      trigger: journey.trigger,
      entryLimit: journey.entryLimit,
      counts: counts.get(journey.id) ?? emptyCounts(),
    })),
  };
}

export async function getJourneyDetail(db: Db, registry: JourneyRegistry, id: string): Promise<JourneyDetail> {
  const journey = registry.get(id);
  const [overrides, counts, recentStates, versions] = await Promise.all([
    loadOverrides(db, [id]),
    countJourneyStates(db, [id]),
    recentJourneyStates(db, id, 10),
    runningVersions(db, id),
  ]);
  return {
    id: journey.id,
    name: journey.name,
    enabled: effectiveEnabled(registry, id, overrides.get(id)?.enabled),
    trigger: journey.trigger,
    entryLimit: journey.entryLimit,
    exitOn: journey.exitOn,
    suppress: journey.suppress ?? null,
    quietHours: journey.quietHours ?? null,
    goal:
      journey.goal === undefined
        ? null
        : { event: journey.goal.event, within: String(journey.goal.within), where: journey.goal.where ?? [], exitOnGoal: journey.exitOnGoal !== false },
    holdout: journey.holdout === undefined ? null : { percent: journey.holdout.percent },
    counts: counts.get(id) ?? emptyCounts(),
    recentStates,
    version: registry.version(id),
    runningVersions: versions,
  };
}

/** PATCH enabled: persisted; takes effect on the next trigger, in-flight runs untouched. */
export async function updateJourneyEnabled(
  db: Db,
  registry: JourneyRegistry,
  id: string,
  enabled: boolean,
  actor: string | null,
): Promise<{ id: string; name: string; enabled: boolean; updatedAt: Date }> {
  const journey = registry.get(id);
  const { updatedAt } = await setJourneyEnabled(db, id, enabled, actor);
  return { id, name: journey.name, enabled, updatedAt };
}
