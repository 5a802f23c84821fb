import { useEffect, useState } from 'react';

/**
 * `value` once it has stopped changing for `ms` (a live count asks the API after typing stops, not
 * on every key). Compared as JSON, so a tree rebuilt with the same content does not restart the wait.
 */
export function useDebouncedValue<T>(value: T, ms = 400): T {
  const [settled, setSettled] = useState(value);
  // undefined (nothing to ask yet) has no JSON text
  const json = JSON.stringify(value) as string | undefined;
  useEffect(() => {
    const timer = setTimeout(() => setSettled((json === undefined ? undefined : JSON.parse(json)) as T), ms);
    return () => clearTimeout(timer);
  }, [json, ms]);
  return settled;
}
