/**
 * A segment's count is a query over every contact, and a list of segments shows one per row: each
 * count is kept for up to 60 seconds (docs/segments.md), per process. The key carries the
 * segment's `updatedAt`, so an edit is counted afresh at once.
 */
export interface SegmentCounts {
  get(key: string, count: () => Promise<number>): Promise<number>;
}

export const SEGMENT_COUNT_TTL_MS = 60_000;

export function createSegmentCounts(options: { ttlMs?: number; now?: () => number } = {}): SegmentCounts {
  const ttlMs = options.ttlMs ?? SEGMENT_COUNT_TTL_MS;
  const clock = options.now ?? Date.now;
  const entries = new Map<string, { at: number; value: Promise<number> }>();
  return {
    async get(key, count) {
      const at = clock();
      for (const [stale, entry] of entries) if (at - entry.at >= ttlMs) entries.delete(stale);
      const cached = entries.get(key);
      if (cached !== undefined) return cached.value;
      // the promise is cached, so concurrent readers share one query; a failure is not kept
      const value = count();
      entries.set(key, { at, value });
      value.catch(() => entries.delete(key));
      return value;
    },
  };
}
