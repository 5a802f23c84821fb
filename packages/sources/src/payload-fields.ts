/** Small readers shared by the presets: providers' payloads are loosely typed JSON. */

export type Primitive = string | number | boolean | null;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function asString(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

export function asEmail(value: unknown): string | undefined {
  const text = asString(value)?.trim();
  return text !== undefined && text.length <= 320 && EMAIL.test(text) ? text : undefined;
}

export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function isPrimitive(value: unknown): value is Primitive {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

/** The named keys of `from` whose values are JSON primitives (nested objects stay behind). */
export function pickPrimitives(from: Record<string, unknown>, keys: readonly string[]): Record<string, Primitive> {
  const picked: Record<string, Primitive> = {};
  for (const key of keys) {
    const value = from[key];
    if (value !== undefined && isPrimitive(value)) picked[key] = value;
  }
  return picked;
}

const SENSITIVE = /password|secret|token|hash|salt/i;

/** Every primitive of a row except credentials (auth.users carries `encrypted_password`, tokens…). */
export function safePrimitives(from: Record<string, unknown>): Record<string, Primitive> {
  return pickPrimitives(
    from,
    Object.keys(from).filter((key) => !SENSITIVE.test(key)),
  );
}

/** Leaves out undefined values, so optional fields are absent rather than `undefined`. */
export function compact<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as T;
}
