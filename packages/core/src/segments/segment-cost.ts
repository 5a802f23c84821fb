import type { SegmentCondition, SegmentLeaf } from './segment-conditions';

/**
 * The leaf kinds by what one costs PostgreSQL per contact, dearest first: an event leaf is a
 * correlated subquery over the event log (counted to minCount), an email leaf one over the sends,
 * a list leaf an indexed probe, a property leaf expressions on the contact's own row (dearer with
 * more `in` values), lastSeen one comparison. A query that ran out of time names the dearest leaf
 * it holds, as the first place to narrow it (docs/segments.md, Limits).
 */
const COST_ORDER: SegmentLeaf['type'][] = ['event', 'email', 'list', 'property', 'lastSeen'];

export interface CostliestLeaf {
  kind: SegmentLeaf['type'];
  path: string;
}

function leaves(condition: SegmentCondition, path: string): CostliestLeaf[] {
  if ('all' in condition) return condition.all.flatMap((child, index) => leaves(child, `${path}.all[${index}]`));
  if ('any' in condition) return condition.any.flatMap((child, index) => leaves(child, `${path}.any[${index}]`));
  if ('not' in condition) return leaves(condition.not, `${path}.not`);
  return [{ kind: condition.type, path }];
}

/** The first leaf of the dearest kind in the tree; undefined for a tree without leaves. */
export function costliestLeaf(condition: SegmentCondition, root = 'conditions'): CostliestLeaf | undefined {
  const all = leaves(condition, root);
  for (const kind of COST_ORDER) {
    const found = all.find((leaf) => leaf.kind === kind);
    if (found !== undefined) return found;
  }
  return undefined;
}
