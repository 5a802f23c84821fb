/**
 * Deepest nesting a JSON request body may have. JSON.parse copes with any depth, but the
 * recursive JSON.stringify on the way to PostgreSQL overflows the stack a few thousand levels
 * down, which would surface as a 500 for what is bad input.
 */
export const MAX_BODY_DEPTH = 100;

/** True when objects/arrays nest deeper than `max` (iterative, so the check cannot overflow itself). */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 1 }];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    // raw bodies (webhook sources) are bytes, not JSON: nothing to walk
    if (item.value === null || typeof item.value !== 'object' || ArrayBuffer.isView(item.value)) continue;
    if (item.depth > max) return true;
    for (const child of Object.values(item.value)) pending.push({ value: child, depth: item.depth + 1 });
  }
  return false;
}
