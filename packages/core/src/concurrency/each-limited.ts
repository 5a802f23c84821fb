/**
 * Runs `work` over `items` with at most `limit` in flight, in the given order of starting. Every
 * item started runs to its end even when another fails, then the first error is thrown: a chunk of
 * sends or starts must not leave work half-begun behind an early rejection.
 *
 * `keepGoing`, asked before each start, stops starting more (e.g. once the service the work calls
 * is known to be down); the answer is how many items were started, so the caller knows which were
 * never tried.
 */
export async function eachLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
  options: { keepGoing?: () => boolean } = {},
): Promise<number> {
  let next = 0;
  const errors: unknown[] = [];
  const keepGoing = options.keepGoing ?? (() => true);
  const lane = async () => {
    while (next < items.length && keepGoing()) {
      const item = items[next++]!;
      await work(item).catch((error: unknown) => errors.push(error));
    }
  };
  await Promise.all(Array.from({ length: Math.max(0, Math.min(limit, items.length)) }, lane));
  if (errors.length > 0) throw errors[0];
  return next;
}
