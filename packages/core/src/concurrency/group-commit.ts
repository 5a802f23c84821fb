/**
 * Group commit: items handed in one at a time are written together. The first item starts a flush
 * at once; items arriving while a flush runs wait for it to end and then go in the next flush,
 * all together. So an item waits for at most one flush ahead of its own, and under load one
 * statement covers many items instead of one round trip each.
 *
 * `flush` answers one result per item, in order. A flush that throws rejects every item of it
 * with that error (never swallowed); the next flush still runs for the items that came later.
 * `maxBatch` (default 200) bounds one flush, so one statement's arrays stay a size PostgreSQL
 * plans and runs quickly; the items beyond it go in the next flush.
 */
export interface GroupCommit<T, R> {
  /** resolves with the item's result once the flush holding it has finished */
  add(item: T): Promise<R>;
}

interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

export function createGroupCommit<T, R>(flush: (items: readonly T[]) => Promise<readonly R[]>, options: { maxBatch?: number } = {}): GroupCommit<T, R> {
  const maxBatch = options.maxBatch ?? 200;
  const waiting: Waiting<T, R>[] = [];
  let flushing = false;

  const run = async (): Promise<void> => {
    while (waiting.length > 0) {
      const batch = waiting.splice(0, maxBatch);
      try {
        const results = await flush(batch.map((entry) => entry.item));
        if (results.length !== batch.length) throw new Error(`group commit: flush answered ${results.length} results for ${batch.length} items`);
        batch.forEach((entry, index) => entry.resolve(results[index]!));
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
    flushing = false;
  };

  return {
    add(item) {
      return new Promise<R>((resolve, reject) => {
        waiting.push({ item, resolve, reject });
        if (flushing) return;
        flushing = true;
        // items handed in by the same turn of the event loop still join this first flush
        queueMicrotask(() => void run());
      });
    },
  };
}
