/**
 * Request values PostgreSQL cannot store as given: a NUL character (text and jsonb refuse
 * `\u0000`, in values and in object keys alike) and numbers that JSON.parse turned into
 * ±Infinity (`1e400`; jsonb has no such value, so JSON.stringify would silently store null).
 * Checked once for every request, before validation, so no route can write half of such a
 * request and no driver message can leak back (docs/api-contract.md).
 */

const NUL = '\u0000';

/** `body.contactProperties.plan`, with awkward keys quoted (`body.lists["a\u0000b"]`). */
function childPath(parent: string, key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
}

/**
 * The first unstorable value under `root` as a 400 message naming the field, or undefined; with
 * `maxDepth`, also objects/arrays nested deeper than that (the HTTP hook asks both in one walk).
 * Iterative, so a deeply nested body cannot overflow the stack here.
 */
export function findUnstorable(root: unknown, rootPath: string, maxDepth = Number.POSITIVE_INFINITY): string | undefined {
  const pending: { value: unknown; path: string; depth: number }[] = [{ value: root, path: rootPath, depth: 1 }];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    const { value, path, depth } = item;
    if (typeof value === 'string') {
      if (value.includes(NUL)) return `${path} must not contain NUL (\\u0000) characters`;
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value)) return `${path} must be a finite number`;
    } else if (value !== null && typeof value === 'object' && !ArrayBuffer.isView(value)) {
      // raw bodies (webhook sources) are bytes, not JSON: nothing to walk
      if (depth > maxDepth) return `${rootPath} nests deeper than ${maxDepth} levels`;
      if (Array.isArray(value)) {
        value.forEach((child, index) => pending.push({ value: child, path: `${path}[${index}]`, depth: depth + 1 }));
      } else {
        for (const [key, child] of Object.entries(value)) {
          if (key.includes(NUL)) return `${childPath(path, key)}: object keys must not contain NUL (\\u0000) characters`;
          pending.push({ value: child, path: childPath(path, key), depth: depth + 1 });
        }
      }
    }
  }
  return undefined;
}
