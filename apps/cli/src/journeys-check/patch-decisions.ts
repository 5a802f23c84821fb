import type { temporal } from '@temporalio/proto';

type History = temporal.api.history.v1.IHistory;

/** The marker the SDK's core records for `patched(id)` (its details carry the id). */
const PATCH_MARKER = 'core_patch';

/** The patch ids a run's history recorded (`patched()` calls that returned true when they first ran). */
export function recordedPatches(history: History): string[] {
  const ids: string[] = [];
  for (const event of history.events ?? []) {
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName !== PATCH_MARKER) continue;
    for (const payloads of Object.values(marker.details ?? {})) {
      for (const payload of payloads.payloads ?? []) {
        const id = /"id"\s*:\s*"([^"]+)"/.exec(Buffer.from(payload.data ?? new Uint8Array()).toString('utf8'))?.[1];
        if (id !== undefined) ids.push(id);
      }
    }
  }
  return ids;
}

/** How often `patched(id)` answered false because the run had already passed that point. */
export type PastPatches = Map<string, number>;

interface Decider {
  now: () => number;
  cutoff: number;
  recorded: ReadonlySet<string>;
  past: PastPatches;
}

let current: Decider | undefined;

/**
 * `patched()` as the journey modules the check loads call it (their `@temporalio/workflow` import
 * is pointed at workflow-api.ts, see load-journeys.ts): it answers as Temporal answers a run started
 * before the deploy. A call reached before the cutoff (virtual time; that part of the run is
 * already in its history) is true only when the history recorded the marker; a call at or after
 * the cutoff runs as new code does, true.
 */
export function patched(patchId: string): boolean {
  if (current === undefined) throw new Error(`patched('${patchId}') ran outside a workflow and outside a journey check's simulation`);
  if (current.now() >= current.cutoff || current.recorded.has(patchId)) return true;
  current.past.set(patchId, (current.past.get(patchId) ?? 0) + 1);
  return false;
}

/** `deprecatePatch()`: the code after it is the only path, so there is nothing to decide. */
export function deprecatePatch(patchId: string): void {
  void patchId;
}

/** Runs `body` (one simulation at a time) with `patched()` deciding on `decider`'s clock. */
export async function withPatchDecisions<T>(decider: Decider, body: () => Promise<T>): Promise<T> {
  if (current !== undefined) throw new Error('one journey-check simulation at a time: patched() decides on its clock');
  current = decider;
  try {
    return await body();
  } finally {
    current = undefined;
  }
}
