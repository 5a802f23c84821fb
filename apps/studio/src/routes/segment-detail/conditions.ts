import { DURATION_EXAMPLES, parsePositiveDuration } from '@waymark/journey/duration';
import type { components } from '../../api/schema';

/** A segment's condition tree, as the API takes and returns it (docs/segments.md, Conditions). */
export type Condition = components['schemas']['SegmentCondition'];
export type PropertyLeaf = components['schemas']['SegmentPropertyCondition'];
export type Operator = PropertyLeaf['operator'];
type Leaf = Extract<Condition, { type: string }>;
export type LeafType = Leaf['type'];
export type LeafOf<T extends LeafType> = Extract<Leaf, { type: T }>;
export type EventLeaf = LeafOf<'event'>;
export type EmailLeaf = LeafOf<'email'>;

export const operators: { value: Operator; label: string }[] = [
  { value: 'eq', label: 'equals' },
  { value: 'neq', label: 'does not equal' },
  { value: 'gt', label: 'is greater than' },
  { value: 'gte', label: 'is at least' },
  { value: 'lt', label: 'is less than' },
  { value: 'lte', label: 'is at most' },
  { value: 'contains', label: 'contains' },
  { value: 'exists', label: 'exists' },
  { value: 'in', label: 'is one of' },
];

/** What "Add a condition" offers: the five leaves and the three groups, each with a blank to fill in. */
export const additions = {
  property: { label: 'Contact property', blank: (): Condition => ({ type: 'property', property: '', operator: 'eq', value: '' }) },
  list: { label: 'On a list', blank: (): Condition => ({ type: 'list', list: '' }) },
  event: { label: 'Performed an event', blank: (): Condition => ({ type: 'event', event: '', within: '30d' }) },
  email: { label: 'Opened or clicked an email', blank: (): Condition => ({ type: 'email', action: 'opened', within: '30d' }) },
  lastSeen: { label: 'Last seen', blank: (): Condition => ({ type: 'lastSeen', within: '30d' }) },
  all: { label: 'All of (group)', blank: (): Condition => ({ all: [] }) },
  any: { label: 'Any of (group)', blank: (): Condition => ({ any: [] }) },
  not: { label: 'Not (group)', blank: (): Condition => ({ not: { all: [] } }) },
} satisfies Record<string, { label: string; blank(): Condition }>;
export type Addition = keyof typeof additions;

/** The kind of a node, so the builder picks its editor; `unknown` for a shape only the JSON can show. */
export function kindOf(condition: Condition): LeafType | 'all' | 'any' | 'not' | 'unknown' {
  if ('all' in condition && Array.isArray(condition.all)) return 'all';
  if ('any' in condition && Array.isArray(condition.any)) return 'any';
  if ('not' in condition && typeof condition.not === 'object' && condition.not !== null) return 'not';
  if ('type' in condition && condition.type in additions) return condition.type;
  return 'unknown';
}

export const withinUnits = [
  { value: 'm', label: 'minutes' },
  { value: 'h', label: 'hours' },
  { value: 'd', label: 'days' },
  { value: 'w', label: 'weeks' },
] as const;
export type WithinUnit = (typeof withinUnits)[number]['value'];

const UNIT_MS: Record<WithinUnit, number> = { w: 604_800_000, d: 86_400_000, h: 3_600_000, m: 60_000 };

/**
 * The editor's amount and unit for a window: `'30d'` → `{amount: '30', unit: 'd'}` (an amount being
 * typed may be blank: `'d'`); another spelling the API takes (`'2 weeks'`, `'36 hours'`) shows in its
 * largest whole unit; anything the API would refuse reads as 30 days.
 */
export function parseWithin(within: string): { amount: string; unit: WithinUnit } {
  const match = /^(\d*)([mhdw])$/.exec(within);
  if (match !== null) return { amount: match[1]!, unit: match[2] as WithinUnit };
  const ms = parsePositiveDuration(within);
  const unit = (Object.keys(UNIT_MS) as WithinUnit[]).find((candidate) => ms !== undefined && ms % UNIT_MS[candidate] === 0);
  return ms === undefined || unit === undefined ? { amount: '30', unit: 'd' } : { amount: String(ms / UNIT_MS[unit]), unit };
}

/** The value text of a property condition: `in` lists its values separated by commas. */
export function valueText(leaf: PropertyLeaf): string {
  if (Array.isArray(leaf.value)) return leaf.value.map(String).join(', ');
  return leaf.value === undefined || leaf.value === null ? '' : String(leaf.value);
}

/** The value the API gets for typed text: `in` splits on commas, `exists` is a boolean, the rest stays text (the operators compare numeric strings as numbers). */
export function valueOf(operator: Operator, text: string): unknown {
  if (operator === 'in') return text.split(',').map((part) => part.trim());
  if (operator === 'exists') return text !== 'false';
  return text;
}

const MAX_DEPTH = 5;
const MAX_LEAVES = 50;

function propertyProblem(leaf: PropertyLeaf, path: string): string | undefined {
  if (leaf.property.trim() === '') return `${path}: name the property`;
  if (leaf.operator === 'exists') return undefined;
  if (leaf.operator === 'in') {
    const values = Array.isArray(leaf.value) ? leaf.value : [];
    return values.length === 0 || values.some((value) => value === '') ? `${path}: list the values, separated by commas` : undefined;
  }
  return leaf.value === undefined || leaf.value === '' ? `${path}: give the value to compare with` : undefined;
}

function withinProblem(within: string, path: string): string | undefined {
  return parsePositiveDuration(within) === undefined ? `${path}.within: a duration longer than 0, such as ${DURATION_EXAMPLES}` : undefined;
}

function leafProblem(condition: Leaf, path: string): string | undefined {
  switch (condition.type) {
    case 'property':
      return propertyProblem(condition, path);
    case 'list':
      return condition.list.trim() === '' ? `${path}: name the list` : undefined;
    case 'event': {
      if (condition.event.trim() === '') return `${path}: name the event`;
      if (condition.minCount !== undefined && !(Number.isInteger(condition.minCount) && condition.minCount >= 1))
        return `${path}.minCount: a whole number of at least 1`;
      const where = (condition.where ?? []).map((leaf, index) => propertyProblem(leaf, `${path}.where[${index}]`)).find((problem) => problem !== undefined);
      return where ?? withinProblem(condition.within, path);
    }
    case 'email':
    case 'lastSeen':
      return withinProblem(condition.within, path);
  }
}

/**
 * What is still missing before the API can count the tree (a blank property, a list without a
 * key, a window it would refuse), naming the node's path the way the API's 400 does; undefined
 * when the tree can be previewed and saved. The API stays the authority on everything else.
 */
export function problemOf(condition: Condition): string | undefined {
  let leaves = 0;
  const visit = (node: Condition, path: string, depth: number): string | undefined => {
    const kind = kindOf(node);
    if (depth > MAX_DEPTH) return `${path}: conditions nest at most ${MAX_DEPTH} levels deep`;
    if (kind === 'all' && 'all' in node) return node.all.map((child, index) => visit(child, `${path}.all[${index}]`, depth + 1)).find(Boolean);
    if (kind === 'any' && 'any' in node) return node.any.map((child, index) => visit(child, `${path}.any[${index}]`, depth + 1)).find(Boolean);
    if (kind === 'not' && 'not' in node) return visit(node.not, `${path}.not`, depth + 1);
    if (kind === 'unknown' || !('type' in node)) return `${path}: not a condition the studio knows; fix it in the JSON`;
    leaves += 1;
    return leafProblem(node, path);
  };
  const problem = visit(condition, 'conditions', 1);
  return problem ?? (leaves > MAX_LEAVES ? `conditions: at most ${MAX_LEAVES} conditions, this has ${leaves}` : undefined);
}

/** JSON typed into the editor, as a tree to load into the builder, or what is wrong with it. */
export function parseConditions(text: string): { conditions: Condition } | { problem: string } {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return { problem: 'The conditions must be a JSON object.' };
    return { conditions: value as Condition };
  } catch (error) {
    return { problem: `Not valid JSON: ${(error as Error).message}` };
  }
}
