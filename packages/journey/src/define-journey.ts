import { describeConditionProblem, type PropertyCondition } from './conditions';
import type { JourneyContext } from './context';
import { quietHoursProblems, type QuietHours } from './local-time';
import { goalProblems, holdoutProblems, type JourneyGoal, type JourneyHoldout } from './outcomes';

export type EntryLimit = 'once' | 'unlimited';

export interface EventRule {
  event: string;
  where?: PropertyCondition[];
}

export interface JourneyDefinition {
  /** stable id: lowercase letters, digits and dashes */
  id: string;
  name: string;
  description: string;
  /** code default; ENABLED_JOURNEYS and the admin override decide the effective value */
  enabled?: boolean;
  trigger: EventRule;
  /** 'once': a user enters at most once ever; 'unlimited' (default): again after the previous run ended */
  entryLimit?: EntryLimit;
  exitOn?: EventRule[];
  /** defer this journey's emails while any journey email went to the address less than `hours` ago (send path; docs/email.md) */
  suppress?: { hours: number };
  /** sends that fall inside this local-time window of the recipient wait until it ends (docs/journeys.md, "Timing and etiquette") */
  quietHours?: QuietHours;
  /** preference category of this journey's emails and its entry check (default `journey`); must be one of journeys/categories.ts, checked when the registry is built */
  category?: string;
  /** what converting means for this journey: measured per arm (docs/journeys.md, "Goals, holdouts and lift") */
  goal?: JourneyGoal;
  /** end the run when the person converts, as an exit rule does (default true) */
  exitOnGoal?: boolean;
  /** a share of the people who enter get none of its emails (required categories excepted), to measure lift */
  holdout?: JourneyHoldout;
  run(ctx: JourneyContext): Promise<void>;
}

export type Journey = Required<Pick<JourneyDefinition, 'enabled' | 'entryLimit' | 'exitOn'>> & JourneyDefinition;

const ID = /^[a-z0-9][a-z0-9-]{0,62}$/;

export class JourneyDefinitionError extends Error {
  constructor(id: string, problems: string[]) {
    super(`Invalid journey '${id}':\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'JourneyDefinitionError';
  }
}

function ruleProblems(label: string, rule: unknown): string[] {
  if (rule === null || typeof rule !== 'object') return [`${label} must be an object {event, where?}`];
  const r = rule as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof r.event !== 'string' || r.event.trim().length === 0) problems.push(`${label}.event must be a non-empty string`);
  if (r.where !== undefined) {
    if (!Array.isArray(r.where)) problems.push(`${label}.where must be an array of conditions`);
    else
      r.where.forEach((condition, index) => {
        const problem = describeConditionProblem(condition);
        if (problem !== undefined) problems.push(`${label}.where[${index}] ${problem}`);
      });
  }
  return problems;
}

/** Returns every problem of a definition (empty when valid). */
export function validateJourney(definition: JourneyDefinition): string[] {
  const d = definition as unknown as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof d.id !== 'string' || !ID.test(d.id)) problems.push('id must be lowercase letters, digits and dashes (max 63)');
  if (typeof d.name !== 'string' || d.name.trim() === '') problems.push('name must be a non-empty string');
  if (typeof d.description !== 'string') problems.push('description must be a string');
  if (d.enabled !== undefined && typeof d.enabled !== 'boolean') problems.push('enabled must be a boolean');
  problems.push(...ruleProblems('trigger', d.trigger));
  if (d.entryLimit !== undefined && d.entryLimit !== 'once' && d.entryLimit !== 'unlimited') problems.push(`entryLimit must be 'once' or 'unlimited'`);
  if (d.exitOn !== undefined) {
    if (!Array.isArray(d.exitOn)) problems.push('exitOn must be an array');
    else d.exitOn.forEach((rule, index) => problems.push(...ruleProblems(`exitOn[${index}]`, rule)));
  }
  if (d.suppress !== undefined) {
    const hours = (d.suppress as { hours?: unknown } | null)?.hours;
    if (typeof hours !== 'number' || !Number.isFinite(hours) || hours < 0) problems.push('suppress.hours must be a number ≥ 0');
  }
  if (d.quietHours !== undefined) problems.push(...quietHoursProblems(d.quietHours));
  if (d.category !== undefined && (typeof d.category !== 'string' || d.category.trim() === '')) problems.push('category must be a non-empty string');
  if (d.goal !== undefined) problems.push(...goalProblems(d.goal));
  if (d.exitOnGoal !== undefined && typeof d.exitOnGoal !== 'boolean') problems.push('exitOnGoal must be a boolean');
  if (d.holdout !== undefined) problems.push(...holdoutProblems(d.holdout));
  if (typeof d.run !== 'function') problems.push('run must be an async function (ctx) => …');
  return problems;
}

/** Declares a journey. Throws a JourneyDefinitionError at import time, so a bad file stops start-up. */
export function defineJourney(definition: JourneyDefinition): Journey {
  const problems = validateJourney(definition);
  if (problems.length > 0) throw new JourneyDefinitionError(String((definition as { id?: unknown }).id ?? '(no id)'), problems);
  return { ...definition, enabled: definition.enabled ?? true, entryLimit: definition.entryLimit ?? 'unlimited', exitOn: definition.exitOn ?? [] };
}
