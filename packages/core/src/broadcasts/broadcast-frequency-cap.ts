import type { DeliveryPolicy } from '@waymark/journey';
import type { Db } from '../db/database';
import { claimCapRoom, type CappedSend } from '../delivery/frequency-caps';

export interface CapCandidate {
  contactId: string;
  email: string;
  /** the recipient's send key (broadcastEmailKey): what the claim of an admitted send is kept under */
  idempotencyKey: string;
}

/**
 * The one place a broadcast asks the delivery policy's frequency caps (docs/journeys.md, "The
 * delivery policy"), once per chunk and for the whole chunk at once: the contacts among
 * `candidates` over a cap for `category` at `now`, with what the cap says (`skip`: skipped as
 * `frequency_cap`; `delay`: kept pending until the window has room). Every other candidate is
 * admitted with a claim; release the claims (`releaseCapClaims`) once the sends have answered.
 */
export async function contactsOverFrequencyCap(
  db: Db,
  policy: DeliveryPolicy,
  input: { category: string; candidates: readonly CapCandidate[]; now: Date },
): Promise<ReadonlyMap<string, CappedSend>> {
  const capped = await claimCapRoom(db, policy, {
    sends: input.candidates.map((candidate) => ({ idempotencyKey: candidate.idempotencyKey, email: candidate.email })),
    category: input.category,
    at: input.now,
  });
  const byContact = new Map<string, CappedSend>();
  for (const candidate of input.candidates) {
    const verdict = capped.get(candidate.idempotencyKey);
    if (verdict !== undefined) byContact.set(candidate.contactId, verdict);
  }
  return byContact;
}
