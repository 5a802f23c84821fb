import type { EmailDeps } from '../emails/email-deps';

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
  // the send path's deps: its database, and (with the delivery policy) the caps to ask
  _email: EmailDeps,
  _input: { category: string; candidates: readonly CapCandidate[]; now: Date },
): Promise<ReadonlySet<string>> {
  return new Set();
}
