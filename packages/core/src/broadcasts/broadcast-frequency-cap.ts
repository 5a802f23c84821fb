import type { Db } from '../db/database';

export interface CapCandidate {
  contactId: string;
  email: string;
}

/**
 * The one place a broadcast asks the delivery policy's frequency caps, once per chunk and for the
 * whole chunk at once: the contacts among `candidates` already at a cap for `category` at `now`.
 * They are skipped as `frequency_cap` (the stats' `skipped.frequencyCap`). Until the delivery
 * policy defines caps (docs/broadcasts.md, "Frequency caps"), no contact is over one.
 */
export async function contactsOverFrequencyCap(
  _db: Db,
  _input: { category: string; candidates: readonly CapCandidate[]; now: Date },
): Promise<ReadonlySet<string>> {
  return new Set();
}
