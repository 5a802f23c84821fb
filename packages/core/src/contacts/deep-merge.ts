import type { JsonObject, JsonValue } from '../db/schema';

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * PATCH semantics for contact properties: objects merge key by key at every depth, any other
 * value (arrays included) replaces, and `null` removes the key — so a caller can delete a
 * property without resending the whole object.
 */
export function deepMergeProperties(target: JsonObject, patch: JsonObject): JsonObject {
  const result: JsonObject = { ...target };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete result[key];
    } else if (isObject(value)) {
      const current = result[key];
      result[key] = deepMergeProperties(isObject(current) ? current : {}, value);
    } else {
      result[key] = value;
    }
  }
  return result;
}
