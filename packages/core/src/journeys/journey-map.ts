import { sql } from 'kysely';
import { catalogPropertySamples, traceJourney, type Journey, type JourneyMap, type JourneyMapEdge, type JourneyMapNode } from '@waymark/journey';
import type { Db } from '../db/database';
import { LIVE_STATUS_LIST } from './live-statuses';
import type { JourneyRegistry } from './registry';

/** A node's live numbers for one version; null where the number means nothing for the node (a branch has no sends). */
export interface JourneyMapNumbers {
  /** live runs (active or waiting) whose current step is this node */
  waiting: number | null;
  /** emails of this node that left for the provider */
  sent: number | null;
  /** of those, opened / clicked by a person at least once (machine opens and clicks left out: docs/email.md) */
  humanOpened: number | null;
  humanClicked: number | null;
  /** people of the treatment arm who converted after reaching this node; null for a journey without a goal */
  converted: number | null;
}

export interface JourneyMapWithNumbers {
  journeyId: string;
  /** the version the numbers are of (runs started under it); null: runs started before versions were recorded */
  version: string | null;
  /** null when the map is drawn; else why it cannot be */
  untraceable: string | null;
  nodes: (JourneyMapNode & JourneyMapNumbers)[];
  edges: JourneyMapEdge[];
  /** steps the version's runs stored that the current code does not have (an older version's), with their numbers */
  elsewhere: ({ nodeId: string } & JourneyMapNumbers)[];
}

/** The journey's code does not change while the process runs: trace it once. */
const traced = new WeakMap<Journey, Promise<JourneyMap>>();

function mapOf(registry: JourneyRegistry, journey: Journey): Promise<JourneyMap> {
  let map = traced.get(journey);
  if (map === undefined) {
    map = traceJourney(journey, catalogPropertySamples(registry.events.jsonSchema(journey.trigger.event)));
    traced.set(journey, map);
  }
  return map;
}

/** The run's first step, before its body moves it anywhere (run-steps.ts): drawn as the trigger. */
const START_NODE = 'start';

interface StoredCounts {
  waiting: number;
  sent: number;
  humanOpened: number;
  humanClicked: number;
}

/**
 * People of the version's treatment arm who converted after reaching each stored node, from the
 * counters kept as they convert (journey_step_counts, migrations/0190): a few rows per day and
 * shard. The counters store a run without a version as '' (their key cannot be null). Held-out
 * people are sent nothing, so their conversions say nothing of a node; the outcomes' holdout arm
 * has them.
 */
async function convertedCounts(db: Db, journeyId: string, version: string | null): Promise<Map<string, number>> {
  const rows = await sql<{ nodeId: string; converted: number }>`
    select node_id as "nodeId", sum(converted)::int as converted from journey_step_counts
    where journey_id = ${journeyId} and journey_version = ${version ?? ''} and not holdout
    group by 1`.execute(db);
  return new Map(rows.rows.map((row) => [row.nodeId, row.converted]));
}

/**
 * Where the version's runs are, and what each email step sent, per stored node id. Two grouped
 * reads over the journey's own rows: the live runs through journey_states_live_steps_idx, the sends
 * through the states' ids (email_sends_state_idx). A send's node is in its idempotency key
 * (`<workflow id>:<node id>:<step>`, temporal's journey context); a send without one (a dead-letter
 * retry) counts at the node of its template when one node sends that template.
 */
async function storedCounts(db: Db, journeyId: string, version: string | null): Promise<Map<string, StoredCounts>> {
  const versionIs = (column: string) => (version === null ? sql`${sql.ref(column)} is null` : sql`${sql.ref(column)} = ${version}`);
  const [waiting, sends] = await Promise.all([
    sql<{ nodeId: string; count: number }>`
      select current_node_id as "nodeId", count(*)::int as count from journey_states
      where journey_id = ${journeyId} and ${versionIs('journey_version')} and status in ${LIVE_STATUS_LIST}
      group by 1`.execute(db),
    sql<{ nodeId: string | null; templateKey: string; sent: number; humanOpened: number; humanClicked: number }>`
      select case when e.idempotency_key like s.workflow_id || ':%:%'
               then regexp_replace(substr(e.idempotency_key, length(s.workflow_id) + 2), ':[0-9]+$', '') end as "nodeId",
             e.template_key as "templateKey",
             count(*) filter (where e.sent_at is not null)::int as sent,
             count(*) filter (where e.human_opened_at is not null)::int as "humanOpened",
             count(*) filter (where e.human_clicked_at is not null)::int as "humanClicked"
      from journey_states s join email_sends e on e.journey_state_id = s.id
      where s.journey_id = ${journeyId} and ${versionIs('s.journey_version')}
      group by 1, 2`.execute(db),
  ]);
  const counts = new Map<string, StoredCounts>();
  const at = (nodeId: string) => {
    const entry = counts.get(nodeId) ?? { waiting: 0, sent: 0, humanOpened: 0, humanClicked: 0 };
    counts.set(nodeId, entry);
    return entry;
  };
  for (const row of waiting.rows) at(row.nodeId).waiting += row.count;
  for (const row of sends.rows) {
    const entry = at(row.nodeId ?? `template:${row.templateKey}`);
    entry.sent += row.sent;
    entry.humanOpened += row.humanOpened;
    entry.humanClicked += row.humanClicked;
  }
  return counts;
}

/**
 * The journey's map drawn from this process's code (docs/journeys.md, "Journey map") with the live
 * numbers of `version`'s runs (default: this code's version) on its nodes.
 */
export async function getJourneyMap(db: Db, registry: JourneyRegistry, journeyId: string, version?: string | null): Promise<JourneyMapWithNumbers> {
  const journey = registry.get(journeyId);
  const chosen = version === undefined ? registry.version(journeyId) : version;
  const [map, counts, converted] = await Promise.all([
    mapOf(registry, journey),
    storedCounts(db, journeyId, chosen),
    journey.goal === undefined ? null : convertedCounts(db, journeyId, chosen),
  ]);
  const convertedAt = (nodeId: string) => (converted === null ? null : (converted.get(nodeId) ?? 0));
  const nodes = map.traced ? map.nodes : [];
  // sends stored without a node id go to the one node that sends their template
  for (const [key, entry] of [...counts]) {
    if (!key.startsWith('template:')) continue;
    const senders = nodes.filter((node) => node.templateKey === key.slice('template:'.length));
    if (senders.length !== 1) continue;
    const target = counts.get(senders[0]!.nodeId!) ?? { waiting: 0, sent: 0, humanOpened: 0, humanClicked: 0 };
    counts.set(senders[0]!.nodeId!, {
      ...target,
      sent: target.sent + entry.sent,
      humanOpened: target.humanOpened + entry.humanOpened,
      humanClicked: target.humanClicked + entry.humanClicked,
    });
    counts.delete(key);
  }
  const stored = (nodeId: string) => counts.get(nodeId) ?? { waiting: 0, sent: 0, humanOpened: 0, humanClicked: 0 };
  const drawn = new Set<string>([START_NODE]);
  const withNumbers = nodes.map((node): JourneyMapNode & JourneyMapNumbers => {
    const storedId = node.kind === 'trigger' ? START_NODE : node.nodeId;
    if (storedId === null) return { ...node, waiting: null, sent: null, humanOpened: null, humanClicked: null, converted: null };
    drawn.add(storedId);
    const numbers = stored(storedId);
    const email = node.kind === 'email';
    return {
      ...node,
      waiting: numbers.waiting,
      sent: email ? numbers.sent : null,
      humanOpened: email ? numbers.humanOpened : null,
      humanClicked: email ? numbers.humanClicked : null,
      converted: convertedAt(storedId),
    };
  });
  const elsewhere = [...counts]
    .filter(([nodeId]) => !drawn.has(nodeId))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([nodeId, numbers]) => ({ nodeId, ...numbers, converted: convertedAt(nodeId) }));
  return {
    journeyId,
    version: chosen,
    untraceable: map.traced ? null : map.reason,
    nodes: withNumbers,
    edges: map.traced ? map.edges : [],
    elsewhere,
  };
}
