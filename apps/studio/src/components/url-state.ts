import { useCallback } from 'react';
import { useSearchParams } from 'react-router';

export const PAGE_SIZE = 25;

/**
 * Filters and pagination live in the query string, so every view is a shareable link. `set`
 * replaces some keys (empty string removes one) and goes back to the first page unless `offset`
 * (or another list's offset) is being set.
 */
export function useUrlState() {
  const [params, setParams] = useSearchParams();
  const get = useCallback((key: string) => params.get(key) ?? '', [params]);
  const set = useCallback(
    (changes: Record<string, string>) =>
      setParams(
        (current) => {
          const next = new URLSearchParams(current);
          for (const [key, value] of Object.entries(changes)) {
            if (value === '') next.delete(key);
            else next.set(key, value);
          }
          // paging one list (`offset`, `deliveriesOffset`) keeps the page of the other
          if (!Object.keys(changes).some((key) => /offset$/i.test(key))) next.delete('offset');
          return next;
        },
        { replace: true },
      ),
    [setParams],
  );
  const offsetOf = useCallback((key: string) => Math.max(0, Number(params.get(key) ?? 0) || 0), [params]);
  return { get, set, offset: offsetOf('offset'), offsetOf, limit: PAGE_SIZE };
}

/** Optional query value: undefined when empty, so the API sees no filter. */
export function optional(value: string): string | undefined {
  return value === '' ? undefined : value;
}
