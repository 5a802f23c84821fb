import type { PropertyCondition } from './conditions';
import type { EventRule, Journey } from './define-journey';

/**
 * A journey drawn from its code (docs/journeys.md, "Journey map"): the trigger, every step the run
 * can take (emails, sleeps, waits, branches, named steps) joined by the paths between them, the end,
 * and the exit rules, which can end a run at any time. trace-journey.ts finds the paths; this module
 * joins them into one graph. The studio draws it as SVG and `waymark journeys map` as Mermaid.
 */

export type JourneyMapNodeKind = 'trigger' | 'email' | 'sleep' | 'wait' | 'branch' | 'step' | 'exit' | 'goal' | 'end';

export interface JourneyMapNode {
  /** unique in the map; the run's node id where the step has one (a second use of it gets `#2`) */
  id: string;
  kind: JourneyMapNodeKind;
  /** what the node does, in words: "Send welcome", "Wait up to 7 days for session.started" */
  label: string;
  /** the id runs store as `currentNodeId` and in their log at this step; null for the trigger, branches, exit, goal, end */
  nodeId: string | null;
  /** the email of an email node */
  templateKey: string | null;
}

export interface JourneyMapEdge {
  from: string;
  to: string;
  /** why the run takes it: "yes", "no", "got session.started", "after 7 days"; null for the only way on */
  label: string | null;
  /** not a step of the run: an exit (or the goal) can end it at any time after the trigger */
  anyTime: boolean;
}

export type JourneyMap = { traced: true; nodes: JourneyMapNode[]; edges: JourneyMapEdge[] } | { traced: false; reason: string };

/** One step of one traced path; `id` identifies the step across paths (see `stepKey` in trace-journey.ts). */
export interface TracedStep {
  id: string;
  kind: 'email' | 'sleep' | 'wait' | 'branch' | 'step';
  label: string;
  nodeId: string | null;
  templateKey: string | null;
  /** the edge out of this step on this path (a wait's or a branch's outcome) */
  outcome: string | null;
}

export const TRIGGER_ID = 'trigger';
export const END_ID = 'end';
export const EXIT_ID = 'exit';
export const GOAL_ID = 'goal';

/** A goal as journeys declare it (`goal: {event, within, where?}`, docs/journeys.md, "Goals, holdouts and lift"). */
interface GoalRule extends EventRule {
  within: string | number;
}

/**
 * The journey's goal, read by shape: the map draws it whether or not this build's `JourneyDefinition`
 * declares the field yet, and a definition without one draws none.
 */
function goalOf(journey: Journey): GoalRule | undefined {
  const goal = (journey as { goal?: GoalRule }).goal;
  return goal !== undefined && typeof goal.event === 'string' ? goal : undefined;
}

export function describeConditions(where: readonly PropertyCondition[] | undefined): string {
  if (where === undefined || where.length === 0) return '';
  return ` where ${where.map((condition) => `${condition.property} ${condition.operator}${condition.value === undefined ? '' : ` ${JSON.stringify(condition.value)}`}`).join(' and ')}`;
}

const describeRule = (rule: EventRule) => `${rule.event}${describeConditions(rule.where)}`;

/** Joins the traced paths (each ends where the run completes) into the journey's map. */
export function buildJourneyMap(journey: Journey, paths: readonly (readonly TracedStep[])[]): JourneyMap {
  const nodes = new Map<string, JourneyMapNode>([
    [TRIGGER_ID, { id: TRIGGER_ID, kind: 'trigger', label: `Trigger: ${describeRule(journey.trigger)}`, nodeId: null, templateKey: null }],
  ]);
  const edges = new Map<string, JourneyMapEdge>();
  const addEdge = (from: string, to: string, label: string | null, anyTime = false) => {
    const key = `${from}\0${to}`;
    const existing = edges.get(key);
    if (existing === undefined) edges.set(key, { from, to, label, anyTime });
    // two outcomes that lead to the same place are one edge with both names
    else if (label !== null && existing.label !== null && !existing.label.split(' or ').includes(label)) existing.label = `${existing.label} or ${label}`;
  };
  for (const path of paths) {
    let from = TRIGGER_ID;
    let label: string | null = null;
    for (const step of path) {
      if (!nodes.has(step.id)) nodes.set(step.id, { id: step.id, kind: step.kind, label: step.label, nodeId: step.nodeId, templateKey: step.templateKey });
      addEdge(from, step.id, label);
      from = step.id;
      label = step.outcome;
    }
    nodes.set(END_ID, { id: END_ID, kind: 'end', label: 'End', nodeId: null, templateKey: null });
    addEdge(from, END_ID, label);
  }
  if (journey.exitOn.length > 0) {
    nodes.set(EXIT_ID, { id: EXIT_ID, kind: 'exit', label: `Exit on ${journey.exitOn.map(describeRule).join(', or ')}`, nodeId: null, templateKey: null });
    addEdge(TRIGGER_ID, EXIT_ID, 'any time', true);
  }
  const goal = goalOf(journey);
  if (goal !== undefined) {
    nodes.set(GOAL_ID, { id: GOAL_ID, kind: 'goal', label: `Goal: ${describeRule(goal)} within ${String(goal.within)}`, nodeId: null, templateKey: null });
    addEdge(TRIGGER_ID, GOAL_ID, 'any time', true);
  }
  return { traced: true, nodes: [...nodes.values()], edges: [...edges.values()] };
}
