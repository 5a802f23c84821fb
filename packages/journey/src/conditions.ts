/**
 * PropertyCondition: `{type: 'property', property, operator, value}` (docs/journeys.md, Conditions).
 * Beyond `eq`, the operators are the ones journey authors reach for next. Pure and workflow-safe.
 */
export const conditionOperators = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'contains', 'exists', 'in'] as const;
export type ConditionOperator = (typeof conditionOperators)[number];

export interface PropertyCondition {
  type: 'property';
  /** property name; a dotted path (`plan.tier`) reads nested objects */
  property: string;
  operator: ConditionOperator;
  /** compared value; `exists` takes a boolean (default true), `in` an array */
  value?: unknown;
}

export type Properties = Record<string, unknown>;

function readPath(properties: Properties, path: string): unknown {
  if (Object.prototype.hasOwnProperty.call(properties, path)) return properties[path];
  let current: unknown = properties;
  for (const part of path.split('.')) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** Numbers and numeric strings compare as numbers; ISO dates compare as instants; else strings. */
function compare(actual: unknown, expected: unknown): number | undefined {
  if (actual === undefined || actual === null || expected === undefined || expected === null) return undefined;
  const a = Number(actual);
  const b = Number(expected);
  if (typeof actual !== 'boolean' && typeof expected !== 'boolean' && actual !== '' && expected !== '' && Number.isFinite(a) && Number.isFinite(b)) {
    return a - b;
  }
  if (typeof actual === 'string' && typeof expected === 'string') {
    const da = Date.parse(actual);
    const db = Date.parse(expected);
    if (Number.isFinite(da) && Number.isFinite(db) && /^\d{4}-\d{2}-\d{2}/.test(actual) && /^\d{4}-\d{2}-\d{2}/.test(expected)) return da - db;
    return actual < expected ? -1 : actual > expected ? 1 : 0;
  }
  return undefined;
}

function looseEquals(actual: unknown, expected: unknown): boolean {
  if (actual === expected) return true;
  // event properties often arrive as strings ("42", "true") from webhooks; compare them leniently
  if ((typeof actual === 'number' || typeof actual === 'boolean') && typeof expected === 'string') return String(actual) === expected;
  if ((typeof expected === 'number' || typeof expected === 'boolean') && typeof actual === 'string') return String(expected) === actual;
  return false;
}

export function evaluateCondition(condition: PropertyCondition, properties: Properties): boolean {
  const actual = readPath(properties, condition.property);
  const expected = condition.value;
  switch (condition.operator) {
    case 'eq':
      return looseEquals(actual, expected);
    case 'neq':
      return !looseEquals(actual, expected);
    case 'gt': {
      const c = compare(actual, expected);
      return c !== undefined && c > 0;
    }
    case 'gte': {
      const c = compare(actual, expected);
      return c !== undefined && c >= 0;
    }
    case 'lt': {
      const c = compare(actual, expected);
      return c !== undefined && c < 0;
    }
    case 'lte': {
      const c = compare(actual, expected);
      return c !== undefined && c <= 0;
    }
    case 'contains':
      if (typeof actual === 'string') return typeof expected === 'string' && actual.toLowerCase().includes(expected.toLowerCase());
      if (Array.isArray(actual)) return actual.some((item) => looseEquals(item, expected));
      return false;
    case 'exists': {
      const present = actual !== undefined && actual !== null;
      return expected === false ? !present : present;
    }
    case 'in':
      return Array.isArray(expected) && expected.some((item) => looseEquals(actual, item));
  }
}

/** Every condition must pass; no conditions means pass. */
export function evaluateConditions(conditions: readonly PropertyCondition[] | undefined, properties: Properties): boolean {
  return (conditions ?? []).every((condition) => evaluateCondition(condition, properties));
}

/** Returns a problem description, or undefined when the condition is well formed. */
export function describeConditionProblem(condition: unknown): string | undefined {
  if (condition === null || typeof condition !== 'object') return 'must be an object';
  const c = condition as Record<string, unknown>;
  if (c.type !== 'property') return `type must be 'property'`;
  if (typeof c.property !== 'string' || c.property.length === 0) return 'property must be a non-empty string';
  if (!conditionOperators.includes(c.operator as ConditionOperator)) return `operator must be one of ${conditionOperators.join(', ')}`;
  if (c.operator === 'in' && !Array.isArray(c.value)) return `operator 'in' needs an array value`;
  if (c.operator === 'exists' && c.value !== undefined && typeof c.value !== 'boolean') return `operator 'exists' takes a boolean value`;
  if (c.operator !== 'exists' && c.value === undefined) return `operator '${String(c.operator)}' needs a value`;
  return undefined;
}
