import { sql } from 'kysely';
import { reputationThresholds, type DeliveryPolicy, type ReputationThresholds } from '@waymark/journey';
import { recordAudit } from '../audit/audit-log';
import type { Config } from '../config/config';
import type { Db } from '../db/database';
import type { BreakerBaseline, BreakerState, ReputationBreakerRow } from '../db/schema';
import type { AppLogger } from '../logging/logger';
import { breakerVerdict, nextBreaker, ratesOf, type BreakerMemory, type WindowCounts } from './breaker-verdict';
import { breakerKeyOf, readWindowCounts, type BreakerKey } from './reputation-counts';
import type { BreakerStates } from './reputation-hold';

/** REPUTATION_* settings with the delivery policy's thresholds (docs/email.md, "Reputation breaker"). */
export interface BreakerSettings {
  thresholds: ReputationThresholds;
  windowHours: number;
  minSends: number;
  cooldownMs: number;
}

/** The breaker's settings of this installation: REPUTATION_* and the delivery policy's thresholds. */
export function breakerSettingsOf(config: Pick<Config, 'email'>, policy: DeliveryPolicy): BreakerSettings {
  const { windowHours, minSends, cooldownMs } = config.email.reputation;
  return { thresholds: reputationThresholds(policy), windowHours, minSends, cooldownMs };
}

/** One change of a breaker's state. */
export interface BreakerTransition extends BreakerKey {
  from: BreakerState;
  to: BreakerState;
  at: Date;
  counts: WindowCounts;
  /** `manual`: POST /v1/admin/deliverability/resume */
  cause: 'rates' | 'cooldown' | 'manual';
}

export interface BreakerDeps {
  db: Db;
  settings: BreakerSettings;
  logger?: Pick<AppLogger, 'info' | 'warn'>;
  /** this process's cached snapshot of the states (the send paths'), forgotten at each change made here */
  states?: Pick<BreakerStates, 'forget'>;
  /** raises the alert of a change (the alerts module, which sits above this one) */
  onTransition?: (transition: BreakerTransition) => Promise<void>;
}

const NO_COUNTS: WindowCounts = { sends: 0, bounces: 0, complaints: 0 };
const OK: BreakerMemory = { state: 'ok', since: null, clearSince: null };

/** The window's counts with a manual resume's baseline set aside, while the baseline is within one window. */
function judgedCounts(counts: WindowCounts, baseline: BreakerBaseline | null, now: Date, windowHours: number): WindowCounts {
  if (baseline === null || now.getTime() - new Date(baseline.at).getTime() >= windowHours * 3_600_000) return counts;
  return {
    sends: Math.max(0, counts.sends - baseline.sends),
    bounces: Math.max(0, counts.bounces - baseline.bounces),
    complaints: Math.max(0, counts.complaints - baseline.complaints),
  };
}

/**
 * Writes a breaker's next state if it is still `current` (two webhook requests judging at once:
 * one of them moves it, and raises the alert once). True when this call moved it.
 */
async function claimState(db: Db, key: BreakerKey, current: BreakerMemory, next: BreakerMemory, baseline?: BreakerBaseline | null): Promise<boolean> {
  const { rows } = await sql<{ provider: string }>`
    insert into reputation_breakers as b (send_group, provider, state, since, clear_since, baseline)
    values (${key.group}, ${key.provider}, ${next.state}, ${next.since ?? new Date()}, ${next.clearSince}, ${baseline === undefined ? null : JSON.stringify(baseline)}::jsonb)
    on conflict (send_group, provider) do update
    set state = excluded.state, since = excluded.since, clear_since = excluded.clear_since,
        baseline = ${baseline === undefined ? sql`b.baseline` : sql`excluded.baseline`}, updated_at = now()
    where b.state = ${current.state} and b.since is not distinct from ${current.since}::timestamptz
      and b.clear_since is not distinct from ${current.clearSince}::timestamptz
    returning provider`.execute(db);
  return rows.length === 1;
}

const AUDIT_ACTION = { ok: 'resume', slowed: 'update', paused: 'pause' } as const;

/** The audit row and log line of a change; then its alert. */
async function announce(deps: BreakerDeps, transition: BreakerTransition): Promise<void> {
  deps.states?.forget();
  const rates = ratesOf(transition.counts);
  const detail = {
    group: transition.group,
    provider: transition.provider,
    from: transition.from,
    to: transition.to,
    cause: transition.cause,
    sends: transition.counts.sends,
    bounceRate: rates.bounceRate,
    complaintRate: rates.complaintRate,
  };
  // a manual resume is audited by its route, with the person who asked
  if (transition.cause !== 'manual')
    await recordAudit(deps.db, {
      actor: 'waymark',
      actorKeyId: null,
      actorType: 'system',
      action: AUDIT_ACTION[transition.to],
      resource: 'deliverability',
      resourceId: breakerKeyOf(transition),
      detail,
      ipAddress: '',
    });
  const line = `reputation breaker ${breakerKeyOf(transition)}: ${transition.from} → ${transition.to}`;
  if (transition.to === 'ok') deps.logger?.info(detail, line);
  else deps.logger?.warn(detail, line);
  await deps.onTransition?.(transition);
}

/**
 * Judges every breaker at `now`: each group and provider with counts in the window, and each one
 * not `ok` (whose cooldown runs even when no mail of theirs flows). Called as SES's events arrive
 * and every minute by the worker's schedule (temporal/workflows/alerts.ts), so a cooldown ends on
 * time when no event comes; each change is written, audited, logged and alerted once. Answers the changes.
 */
export async function evaluateBreakers(deps: BreakerDeps, now: Date): Promise<BreakerTransition[]> {
  const { settings } = deps;
  const counts = await readWindowCounts(deps.db, now, settings.windowHours);
  const rows = new Map((await deps.db.selectFrom('reputationBreakers').selectAll().execute()).map((row) => [breakerKeyOf(rowKey(row)), row]));
  const keys = new Set([...counts.keys(), ...[...rows].filter(([, row]) => row.state !== 'ok').map(([key]) => key)]);
  const transitions: BreakerTransition[] = [];
  for (const id of keys) {
    const row = rows.get(id);
    const key = row === undefined ? counts.get(id)! : rowKey(row);
    const current: BreakerMemory = row === undefined ? OK : { state: row.state, since: row.since, clearSince: row.clearSince };
    const judged = judgedCounts(counts.get(id) ?? NO_COUNTS, row?.baseline ?? null, now, settings.windowHours);
    const next = nextBreaker(current, breakerVerdict(judged, settings.thresholds, settings.minSends), now, settings.cooldownMs);
    if (next === current || !(await claimState(deps.db, key, current, next))) continue;
    if (next.state === current.state) continue;
    const transition: BreakerTransition = {
      ...key,
      from: current.state,
      to: next.state,
      at: now,
      counts: judged,
      cause: next.state === 'ok' ? 'cooldown' : 'rates',
    };
    await announce(deps, transition);
    transitions.push(transition);
  }
  return transitions;
}

const rowKey = (row: Pick<ReputationBreakerRow, 'sendGroup' | 'provider'>): BreakerKey => ({ group: row.sendGroup, provider: row.provider });

/**
 * Resumes tripped breakers by hand (all of them, or one group and provider): each goes back to
 * `ok`, and the counts of the window so far are set aside for one window, so the complaints
 * that tripped it do not trip it again at the next event. Answers the changes.
 */
export async function resumeBreakers(deps: BreakerDeps, now: Date, only?: BreakerKey): Promise<BreakerTransition[]> {
  const counts = await readWindowCounts(deps.db, now, deps.settings.windowHours);
  let query = deps.db.selectFrom('reputationBreakers').selectAll().where('state', '!=', 'ok');
  if (only !== undefined) query = query.where('sendGroup', '=', only.group).where('provider', '=', only.provider);
  const transitions: BreakerTransition[] = [];
  for (const row of await query.execute()) {
    const key = rowKey(row);
    const windowCounts = counts.get(breakerKeyOf(key)) ?? NO_COUNTS;
    const current: BreakerMemory = { state: row.state, since: row.since, clearSince: row.clearSince };
    const resumed = await claimState(deps.db, key, current, { state: 'ok', since: now, clearSince: null }, { at: now.toISOString(), ...windowCounts });
    if (!resumed) continue;
    const transition: BreakerTransition = { ...key, from: row.state, to: 'ok', at: now, counts: windowCounts, cause: 'manual' };
    await announce(deps, transition);
    transitions.push(transition);
  }
  return transitions;
}

/** One row of `breaker` in GET /v1/admin/deliverability. */
export interface BreakerReport extends BreakerKey {
  state: BreakerState;
  sends: number;
  bounceRate: number;
  complaintRate: number;
  /** when the state began; null: never tripped */
  since: Date | null;
}

/** The breaker's rows for the deliverability report: every group and provider with sends in the window or a state of its own. */
export async function breakerReport(deps: Pick<BreakerDeps, 'db' | 'settings'>, now: Date): Promise<BreakerReport[]> {
  const counts = await readWindowCounts(deps.db, now, deps.settings.windowHours);
  const rows = await deps.db.selectFrom('reputationBreakers').selectAll().execute();
  const byKey = new Map(rows.map((row) => [breakerKeyOf(rowKey(row)), row]));
  const keys = new Set([...counts.keys(), ...byKey.keys()]);
  return [...keys].sort().map((id) => {
    const row = byKey.get(id);
    const windowCounts = counts.get(id) ?? NO_COUNTS;
    const key = row === undefined ? counts.get(id)! : rowKey(row);
    return {
      group: key.group,
      provider: key.provider,
      state: row?.state ?? 'ok',
      sends: windowCounts.sends,
      ...ratesOf(windowCounts),
      since: row?.since ?? null,
    };
  });
}
