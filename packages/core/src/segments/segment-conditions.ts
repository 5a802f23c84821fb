import { conditionOperators, DURATION_EXAMPLES, durationMs, parsePositiveDuration } from '@waymark/journey';
import { z } from 'zod';
import { badRequest } from '../errors/app-error';

/**
 * A segment's condition tree (docs/segments.md): groups `{all}`, `{any}`, `{not}` over leaves on a
 * contact's properties, lists, events, email engagement and last activity. The leaf schemas below
 * check one node each; `parseSegmentConditions` walks the tree so a mistake is reported with its
 * path (`conditions.all[1].operator: …`), which a union of recursive schemas cannot do.
 */

export const MAX_SEGMENT_DEPTH = 5;
export const MAX_SEGMENT_LEAVES = 50;
/**
 * Values across all the `in` lists of a tree (property leaves and event `where`s): each value is a
 * few bind parameters and a branch every contact is tested against, so the total bounds both the
 * statement (PostgreSQL takes at most 65,535 parameters) and its cost (docs/segments.md, Limits).
 */
export const MAX_SEGMENT_IN_VALUES = 2_000;

const MAX_WITHIN_MS = durationMs('3650d');

/** `30d`, `12h`, `90 minutes`, `2 weeks` (the duration grammar of @waymark/journey): how far back a leaf looks, up to ten years. */
const within = z
  .string()
  .max(100)
  .superRefine((value, ctx) => {
    const ms = parsePositiveDuration(value);
    if (ms === undefined) ctx.addIssue({ code: 'custom', message: `must be a duration longer than 0, such as ${DURATION_EXAMPLES}` });
    else if (ms > MAX_WITHIN_MS) ctx.addIssue({ code: 'custom', message: 'must be at most ten years (3650d)' });
  })
  .describe("how far back to look: a duration such as '30d', '12h', '90m' or '2 weeks'");

const propertyName = z.string().min(1).max(200).describe('property name; a dotted path (`plan.tier`) reads nested objects');

/** The journey condition operators (docs/journeys.md, Conditions), here on stored JSON. */
export const propertyConditionSchema = z
  .strictObject({
    type: z.literal('property'),
    property: propertyName,
    operator: z.enum(conditionOperators),
    value: z.unknown().optional().describe('compared value; `exists` takes a boolean (default true), `in` an array'),
  })
  .superRefine((leaf, ctx) => {
    if (leaf.operator === 'in' && (!Array.isArray(leaf.value) || leaf.value.length > 500))
      ctx.addIssue({ code: 'custom', path: ['value'], message: "operator 'in' needs an array of at most 500 values" });
    else if (leaf.operator === 'exists' && leaf.value !== undefined && typeof leaf.value !== 'boolean')
      ctx.addIssue({ code: 'custom', path: ['value'], message: "operator 'exists' takes a boolean value" });
    else if (leaf.operator !== 'exists' && leaf.value === undefined)
      ctx.addIssue({ code: 'custom', path: ['value'], message: `operator '${leaf.operator}' needs a value` });
  })
  .meta({ id: 'SegmentPropertyCondition' });

export type SegmentPropertyCondition = z.infer<typeof propertyConditionSchema>;

const leafSchemas = [
  propertyConditionSchema,
  z.strictObject({ type: z.literal('list'), list: z.string().min(1).max(200).describe('list key; members subscribed to it') }),
  z.strictObject({
    type: z.literal('event'),
    event: z.string().min(1).max(200),
    within,
    where: z.array(propertyConditionSchema).max(20).optional().describe("conditions on the event's properties, all must pass"),
    minCount: z.number().int().min(1).max(1_000_000).optional().describe('performed at least this many times in the window (default 1)'),
  }),
  z.strictObject({
    type: z.literal('email'),
    action: z.enum(['opened', 'clicked']).describe("opened or clicked by a person (machine opens and clicks don't count)"),
    within,
    templateKey: z.string().min(1).max(200).optional(),
  }),
  z.strictObject({ type: z.literal('lastSeen'), within }),
] as const;

const leafSchema = z.discriminatedUnion('type', leafSchemas);
export type SegmentLeaf = z.infer<typeof leafSchema>;

export type SegmentCondition = SegmentLeaf | { all: SegmentCondition[] } | { any: SegmentCondition[] } | { not: SegmentCondition };

/** The whole tree, for the OpenAPI document and typed clients; input is checked by parseSegmentConditions. */
export const segmentConditionSchema: z.ZodType<SegmentCondition> = z
  .lazy(() =>
    z.union([
      z.strictObject({ all: z.array(segmentConditionSchema).describe('every condition holds (an empty list: every contact)') }),
      z.strictObject({ any: z.array(segmentConditionSchema).describe('at least one condition holds') }),
      z.strictObject({ not: segmentConditionSchema }),
      leafSchema,
    ]),
  )
  .meta({
    id: 'SegmentCondition',
    description: `A condition tree: groups all, any, not; at most ${MAX_SEGMENT_DEPTH} levels, ${MAX_SEGMENT_LEAVES} leaves and ${MAX_SEGMENT_IN_VALUES} values across its \`in\` lists.`,
  });

function formatPath(base: string, path: readonly PropertyKey[]): string {
  return path.reduce<string>((text, part) => (typeof part === 'number' ? `${text}[${part}]` : `${text}.${String(part)}`), base);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Checks a tree from a request and returns it typed; 400 naming the first failing path otherwise
 * (`root` is how the caller names the tree, `conditions` in the API).
 */
export function parseSegmentConditions(value: unknown, root = 'conditions'): SegmentCondition {
  let leaves = 0;
  let inValues = 0;
  const countInValues = (where: SegmentPropertyCondition, path: string) => {
    if (where.operator !== 'in' || !Array.isArray(where.value)) return;
    inValues += where.value.length;
    if (inValues > MAX_SEGMENT_IN_VALUES) throw badRequest(`${path}.value: a segment has at most ${MAX_SEGMENT_IN_VALUES} values across its 'in' lists`);
  };
  const walk = (node: unknown, path: string, depth: number): SegmentCondition => {
    if (depth > MAX_SEGMENT_DEPTH) throw badRequest(`${path}: conditions nest at most ${MAX_SEGMENT_DEPTH} levels deep`);
    if (!isRecord(node)) throw badRequest(`${path}: must be an object (a group all, any or not, or a leaf with a type)`);
    const groupKeys = ['all', 'any', 'not'].filter((key) => key in node);
    if (groupKeys.length > 0) {
      const key = groupKeys[0]!;
      const extra = Object.keys(node).filter((name) => name !== key);
      if (extra.length > 0) throw badRequest(`${path}: a group has exactly one key (all, any or not); unexpected ${extra.join(', ')}`);
      if (key === 'not') return { not: walk(node.not, `${path}.not`, depth + 1) };
      const children = node[key];
      if (!Array.isArray(children)) throw badRequest(`${path}.${key}: must be an array of conditions`);
      const parsed = children.map((child, index) => walk(child, `${path}.${key}[${index}]`, depth + 1));
      return key === 'all' ? { all: parsed } : { any: parsed };
    }
    leaves += 1;
    if (leaves > MAX_SEGMENT_LEAVES) throw badRequest(`${path}: a segment has at most ${MAX_SEGMENT_LEAVES} leaf conditions`);
    if (!leafSchemas.some((schema) => schema.shape.type.value === node.type)) {
      const types = leafSchemas.map((schema) => schema.shape.type.value).join(', ');
      throw badRequest(`${path}.type: must be one of ${types} (or the node a group all, any or not)`);
    }
    const result = leafSchema.safeParse(node);
    if (!result.success) {
      const issue = result.error.issues[0]!;
      throw badRequest(`${formatPath(path, issue.path)}: ${issue.message}`);
    }
    const leaf = result.data;
    if (leaf.type === 'property') countInValues(leaf, path);
    if (leaf.type === 'event') leaf.where?.forEach((where, index) => countInValues(where, `${path}.where[${index}]`));
    return leaf;
  };
  return walk(value, root, 1);
}

/** Every list key a tree names (checked against the lists that exist before it is saved). */
export function segmentListKeys(condition: SegmentCondition, path = 'conditions'): { key: string; path: string }[] {
  if ('all' in condition) return condition.all.flatMap((child, index) => segmentListKeys(child, `${path}.all[${index}]`));
  if ('any' in condition) return condition.any.flatMap((child, index) => segmentListKeys(child, `${path}.any[${index}]`));
  if ('not' in condition) return segmentListKeys(condition.not, `${path}.not`);
  return condition.type === 'list' ? [{ key: condition.list, path: `${path}.list` }] : [];
}
