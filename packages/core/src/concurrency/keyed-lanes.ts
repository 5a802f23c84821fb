/**
 * Runs `work` over `items` with at most `lanes` in flight: items of one key go through one lane
 * in their given order (a user's events must reach the pipeline in the order they happened, so a
 * trigger is routed before the event its run waits for), different keys run side by side.
 */
export async function runInKeyedLanes<T>(items: readonly T[], keyOf: (item: T) => string, lanes: number, work: (item: T) => Promise<void>): Promise<void> {
  const queues: T[][] = Array.from({ length: lanes }, () => []);
  for (const item of items) queues[laneOf(keyOf(item), lanes)]!.push(item);
  await Promise.all(
    queues.map(async (queue) => {
      for (const item of queue) await work(item);
    }),
  );
}

function laneOf(key: string, lanes: number): number {
  let hash = 0;
  for (let i = 0; i < key.length; i += 1) hash = (hash * 31 + key.charCodeAt(i)) | 0;
  return Math.abs(hash) % lanes;
}
