import { DURATION_EXAMPLES, durationMs, parseDuration } from './duration';
import { quietHoursProblems, type QuietHours } from './local-time';
import { hashedArm, type HoldoutArm } from './outcomes';
import { DEFAULT_REPUTATION_THRESHOLDS, reputationProblems, warmupProblems, type ReputationThresholds, type WarmupPlan } from './reputation-policy';

/** How long a cap's window is, in the duration grammar of duration.ts: '24h', '7d', '2 weeks'. */
export type CapPeriod = string;

/** A frequency cap: at most `max` sends of `category` to one person per rolling `per`. */
export interface FrequencyCap {
  /** a preference category of journeys/categories.ts, or '*' for every category not exempt */
  category: string;
  max: number;
  per: CapPeriod;
  /** 'skip': the send is dropped (`frequency_cap` in the run log); 'delay': it waits until the window has room */
  onCap: 'skip' | 'delay';
}

/**
 * What becomes of a send whose outcome is unknown (an attempt stopped during the provider call)
 * when SES event publishing is off (docs/email.md, "Exactly once"): `drop` keeps it at most once
 * (status `unknown_dropped`), `resend` sends it again (at least once), `ask` parks it in the DLQ.
 */
export type UnknownDeliveryAction = 'drop' | 'resend' | 'ask';
const UNKNOWN_ACTIONS: readonly string[] = ['drop', 'resend', 'ask'] satisfies UnknownDeliveryAction[];

export interface DeliveryPolicyDefinition {
  caps?: FrequencyCap[];
  /** the quiet hours of every journey that does not set its own `quietHours` */
  quietHours?: QuietHours;
  /** categories no cap applies to (their sends are not counted either) */
  exempt?: string[];
  /** per category, what an unknown delivery becomes without event publishing (default: `drop`, `ask` for a required category) */
  unknown?: Record<string, UnknownDeliveryAction>;
  /** the reputation breaker's thresholds (reputation-policy.ts; unset ones keep their defaults) */
  reputation?: Partial<ReputationThresholds>;
  /** a new sending identity's warm-up ramp of marketing mail (none: full volume from day one) */
  warmup?: WarmupPlan;
  /** the program holdout: a share of people who get no email in `categories` from any journey or broadcast */
  holdout?: ProgramHoldout;
}

/**
 * A program-wide holdout (docs/journeys.md, "Goals, holdouts and lift"): `percent` of people
 * (0–50, by a hash of their user id) get no email in `categories` from any journey or broadcast,
 * to measure lifecycle email as a whole. A required category is never held out.
 */
export interface ProgramHoldout {
  percent: number;
  categories: string[];
}

/** A checked delivery policy (docs/journeys.md, "Timing and etiquette"). */
export interface DeliveryPolicy {
  caps: readonly FrequencyCap[];
  quietHours?: QuietHours;
  exempt: readonly string[];
  unknown?: Readonly<Record<string, UnknownDeliveryAction>>;
  reputation?: Readonly<Partial<ReputationThresholds>>;
  warmup?: Readonly<WarmupPlan>;
  holdout?: Readonly<ProgramHoldout>;
}

/** Any category not exempt, in a cap's `category`. */
export const EVERY_CATEGORY = '*';

/** The window of a cap in milliseconds ('24h' → 86 400 000). */
export function capPeriodMs(per: CapPeriod): number {
  return durationMs(per);
}

const CAP_KEYS = new Set(['category', 'max', 'per', 'onCap']);
const POLICY_KEYS = new Set(['caps', 'quietHours', 'exempt', 'unknown', 'reputation', 'warmup', 'holdout']);
const HOLDOUT_KEYS = new Set(['percent', 'categories']);

const unknownKeys = (label: string, value: object, known: ReadonlySet<string>) =>
  Object.keys(value)
    .filter((key) => !known.has(key))
    .map((key) => `${label}${key}: unknown key (expected one of ${[...known].join(', ')})`);

function capProblems(label: string, cap: unknown): string[] {
  if (cap === null || typeof cap !== 'object' || Array.isArray(cap)) return [`${label}: must be {category, max, per, onCap}`];
  const { category, max, per, onCap } = cap as Record<string, unknown>;
  const problems = unknownKeys(`${label}.`, cap, CAP_KEYS);
  if (typeof category !== 'string' || category === '') problems.push(`${label}.category: must be a non-empty string`);
  if (typeof max !== 'number' || !Number.isInteger(max) || max < 1) problems.push(`${label}.max: must be a whole number ≥ 1`);
  const periodMs = typeof per === 'string' ? parseDuration(per) : undefined;
  if (periodMs === undefined) problems.push(`${label}.per: must be a duration such as ${DURATION_EXAMPLES}`);
  else if (periodMs <= 0) problems.push(`${label}.per: must be longer than 0`);
  if (onCap !== 'skip' && onCap !== 'delay') problems.push(`${label}.onCap: must be 'skip' or 'delay'`);
  return problems;
}

function stringListProblems(label: string, list: unknown): string[] {
  if (!Array.isArray(list)) return [`${label}: must be an array of category names`];
  return list.flatMap((item, index) => (typeof item === 'string' && item !== '' ? [] : [`${label}.${index}: must be a non-empty string`]));
}

function unknownActionProblems(unknown: unknown): string[] {
  if (unknown === null || typeof unknown !== 'object' || Array.isArray(unknown)) return ["unknown: must be an object { category: 'drop' | 'resend' | 'ask' }"];
  return Object.entries(unknown).flatMap(([category, action]) =>
    UNKNOWN_ACTIONS.includes(action as string) ? [] : [`unknown.${category}: must be 'drop', 'resend' or 'ask'`],
  );
}

function programHoldoutProblems(holdout: unknown): string[] {
  if (holdout === null || typeof holdout !== 'object' || Array.isArray(holdout)) return ['holdout: must be an object {percent, categories}'];
  const { percent, categories } = holdout as Record<string, unknown>;
  const problems = unknownKeys('holdout.', holdout, HOLDOUT_KEYS);
  if (typeof percent !== 'number' || !Number.isFinite(percent) || percent < 0 || percent > 50) problems.push('holdout.percent: must be a number from 0 to 50');
  problems.push(...stringListProblems('holdout.categories', categories));
  if (Array.isArray(categories) && categories.length === 0) problems.push('holdout.categories: must name at least one category');
  return problems;
}

/**
 * Every problem of a definition's shape, written out rather than with zod: workflow code imports
 * this package, and the workflow sandbox evaluates the modules a run imports once per run, so zod
 * in the workflow bundle cost every journey run its schema construction (bench/HISTORY.md, "What a
 * run costs the worker"), as journey definitions are checked by hand for the same reason.
 */
function policyProblems(definition: unknown): string[] {
  if (definition === null || typeof definition !== 'object' || Array.isArray(definition)) return ['(policy): must be an object {caps?, quietHours?, exempt?}'];
  const { caps, quietHours, exempt, unknown, reputation, warmup, holdout } = definition as Record<string, unknown>;
  const problems = unknownKeys('', definition, POLICY_KEYS);
  if (caps !== undefined) {
    if (Array.isArray(caps)) caps.forEach((cap, index) => problems.push(...capProblems(`caps.${index}`, cap)));
    else problems.push('caps: must be an array of caps');
  }
  if (quietHours !== undefined) problems.push(...quietHoursProblems(quietHours));
  if (exempt !== undefined) problems.push(...stringListProblems('exempt', exempt));
  if (unknown !== undefined) problems.push(...unknownActionProblems(unknown));
  if (reputation !== undefined) problems.push(...reputationProblems(reputation));
  if (warmup !== undefined) problems.push(...warmupProblems(warmup));
  if (holdout !== undefined) problems.push(...programHoldoutProblems(holdout));
  return problems;
}

export class DeliveryPolicyError extends Error {
  constructor(problems: string[]) {
    super(`Invalid delivery policy (journeys/delivery-policy.ts):\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'DeliveryPolicyError';
  }
}

/**
 * Declares the installation's delivery policy. The shape is checked here, at import time, so a bad
 * file stops start-up; the category names are checked against the declared categories when the
 * runtime is built (`deliveryPolicyCategoryProblems`).
 */
export function defineDeliveryPolicy(definition: DeliveryPolicyDefinition): DeliveryPolicy {
  const shape = policyProblems(definition);
  if (shape.length > 0) throw new DeliveryPolicyError(shape);
  const { caps = [], exempt = [], quietHours, unknown, reputation, warmup, holdout } = definition;
  const problems = caps.flatMap((cap, index) =>
    cap.category !== EVERY_CATEGORY && exempt.includes(cap.category)
      ? [`caps.${index}.category: '${cap.category}' is exempt, so this cap would never apply`]
      : [],
  );
  if (problems.length > 0) throw new DeliveryPolicyError(problems);
  // copies, as a parser would give: a later change to the definition object does not reach the policy
  return {
    caps: caps.map((cap) => ({ ...cap })),
    exempt: [...exempt],
    ...(quietHours === undefined ? {} : { quietHours: { ...quietHours } }),
    ...(unknown === undefined ? {} : { unknown: { ...unknown } }),
    ...(reputation === undefined ? {} : { reputation: { ...reputation } }),
    ...(warmup === undefined ? {} : { warmup: { ...warmup } }),
    ...(holdout === undefined ? {} : { holdout: { percent: holdout.percent, categories: [...holdout.categories] } }),
  };
}

/** The categories the policy names that `known` does not declare, as messages naming each (empty when all are known). */
export function deliveryPolicyCategoryProblems(policy: DeliveryPolicy, known: (key: string) => boolean): string[] {
  const problems: string[] = [];
  policy.caps.forEach((cap, index) => {
    if (cap.category !== EVERY_CATEGORY && !known(cap.category))
      problems.push(`caps.${index}.category: unknown category '${cap.category}' (declare it in journeys/categories.ts)`);
  });
  policy.exempt.forEach((category, index) => {
    if (!known(category)) problems.push(`exempt.${index}: unknown category '${category}' (declare it in journeys/categories.ts)`);
  });
  policy.holdout?.categories.forEach((category, index) => {
    if (!known(category)) problems.push(`holdout.categories.${index}: unknown category '${category}' (declare it in journeys/categories.ts)`);
  });
  for (const category of Object.keys(policy.unknown ?? {})) {
    if (!known(category)) problems.push(`unknown.${category}: unknown category '${category}' (declare it in journeys/categories.ts)`);
  }
  return problems;
}

/** What an unknown delivery of `category` becomes without event publishing: the policy's word, else `ask` for a required category and `drop` for any other. */
export function unknownDeliveryAction(policy: DeliveryPolicy, category: string, required: boolean): UnknownDeliveryAction {
  return policy.unknown?.[category] ?? (required ? 'ask' : 'drop');
}

/** The salt of the program holdout's hash: fixed, so a person's arm never changes with the policy's other settings. */
const PROGRAM_HOLDOUT_SALT = 'waymark:program-holdout';

/**
 * The program-holdout arm of a person for a send of `category`: undefined when the policy holds
 * out no one or not this category (whether the category is required is the caller's to say:
 * packages/core/src/delivery/program-holdout.ts). The same hash as a journey's holdout
 * (outcomes.ts), with the program's salt.
 */
export function programHoldoutArm(policy: DeliveryPolicy, category: string, userId: string): HoldoutArm | undefined {
  if (policy.holdout === undefined || !programHoldsCategory(policy, category)) return undefined;
  return hashedArm(PROGRAM_HOLDOUT_SALT, userId, policy.holdout.percent);
}

/** Whether the program holdout holds people out of `category` (what its outcomes measure, journey by journey). */
export function programHoldsCategory(policy: DeliveryPolicy, category: string): boolean {
  return policy.holdout?.categories.includes(category) ?? false;
}

/** The reputation breaker's thresholds under `policy`: its own, else the defaults. */
export function reputationThresholds(policy: DeliveryPolicy): ReputationThresholds {
  return { ...DEFAULT_REPUTATION_THRESHOLDS, ...policy.reputation };
}

/** A policy that caps nothing and sets no quiet hours. */
export const NO_DELIVERY_POLICY: DeliveryPolicy = { caps: [], exempt: [] };

/** The caps a send of `category` must pass (none for an exempt category). */
export function capsFor(policy: DeliveryPolicy, category: string): FrequencyCap[] {
  if (policy.exempt.includes(category)) return [];
  return policy.caps.filter((cap) => cap.category === category || cap.category === EVERY_CATEGORY);
}

/** Whether an earlier send of `category` counts toward `cap`. */
export function capCounts(policy: DeliveryPolicy, cap: FrequencyCap, category: string): boolean {
  return cap.category === EVERY_CATEGORY ? !policy.exempt.includes(category) : cap.category === category;
}

/** '2 per 24h (journey)': a cap in words, for the run log, explain and the studio. */
export function describeCap(cap: FrequencyCap): string {
  return `${cap.max} per ${cap.per} (${cap.category === EVERY_CATEGORY ? 'all categories' : cap.category})`;
}

export type CapVerdict = { capped: false } | { capped: true; onCap: 'skip' | 'delay'; cap: FrequencyCap; until: number };

/**
 * Whether a send of `category` at `at` is over a cap, given the person's earlier sends (time and
 * category, any order). `until` is when the window has room again; when several caps are full, a
 * `skip` cap wins (the send would be dropped anyway), else the send waits for the latest room.
 */
export function capVerdict(policy: DeliveryPolicy, category: string, at: number, earlier: readonly { at: number; category: string }[]): CapVerdict {
  let verdict: CapVerdict = { capped: false };
  for (const cap of capsFor(policy, category)) {
    const period = capPeriodMs(cap.per);
    const inWindow = earlier
      .filter((send) => send.at > at - period && send.at <= at && capCounts(policy, cap, send.category))
      .map((send) => send.at)
      .sort((a, b) => a - b);
    if (inWindow.length < cap.max) continue;
    // room opens when enough of the oldest sends leave the window for one more to fit
    const until = inWindow[inWindow.length - cap.max]! + period;
    if (!verdict.capped || (verdict.onCap === 'delay' && (cap.onCap === 'skip' || until > verdict.until)))
      verdict = { capped: true, onCap: cap.onCap, cap, until };
  }
  return verdict;
}

/** The journey with the policy's quiet hours when it sets none of its own. */
export function withPolicyQuietHours<J extends { quietHours?: QuietHours }>(journey: J, policy: DeliveryPolicy): J {
  return journey.quietHours !== undefined || policy.quietHours === undefined ? journey : { ...journey, quietHours: policy.quietHours };
}
