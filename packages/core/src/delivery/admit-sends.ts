import { capsFor, type DeliveryPolicy, type HoldoutArm } from '@waymark/journey';
import type { PreferenceCategories } from '@waymark/email/preference-categories';
import { isRequired, sendGateResult, type GateCategory, type SendBlockReason, type SendGateVerdicts } from '../preferences/send-gate';
import type { CappedSend } from './frequency-caps';
import { programHoldout } from './program-holdout';
import { sendCategory } from './send-category';
import { suppressWindowEnd } from './suppress-window';

/**
 * Letting a send through: the one place the send paths (a journey's email step, a broadcast
 * chunk, a caller's own send through `sendEmail`) and the journey test kit's world ask whether an
 * intended send goes now, is skipped, or waits. Each rule stays a pure function of its own home
 * (the gate `sendGateResult`, the caps `capVerdict`, `programHoldout`, `reputationHold`, the
 * suppress window, the warm-up allowance); this module fixes their ORDER and resolves the
 * category once. The order, and why:
 *
 * 1. holdouts (the journey's or broadcast's own arm, then the program holdout): first, so both arms
 *    of an experiment hold the same kind of people (a gate or a cap after the draw treats both
 *    alike); a required category is never held out. A caller's own send has no holdout.
 * 2. the send gate (suppressed, unsubscribed from all, the category off): what the person said
 *    wins over everything that would only delay; a required category passes all but suppression.
 *    Then a send that cannot be built (a broadcast recipient missing the template's data) is
 *    skipped: after the holdouts, so a holdout arm stays everyone its hash keeps out, and before
 *    every rule that claims, so it takes nobody's cap room nor warm-up allowance.
 * 3. the reputation hold: marketing mail to a provider whose breaker is paused waits; asked before
 *    any claim, so a held send takes no cap room nor warm-up allowance.
 * 4. the frequency caps (journeys and broadcasts; never a required category): a claim of cap
 *    room, so two sends decided at once cannot both take the last slot; released by the caller
 *    once the send path has answered (or here, when a later step defers the send).
 * 5. the journey's suppress window: after the caps, whose `skip` ends the send for good, where the
 *    window only delays it.
 * 6. the warm-up allowance: last, since its claim is spent for good; only a send that passed
 *    every other rule uses a share of the day.
 *
 * A send whose email_sends row exists was admitted by an earlier attempt that did not send it (a
 * provider error, a send-rate wait, a delivery unknown sent again): it is asked the holdouts (a pure
 * function of who it is) and the send gate again, since the person may have been suppressed or
 * have unsubscribed in between and nothing has reached them yet; past the gate it goes on, its cap
 * room and warm-up allowance never claimed twice, nor held by what would only delay it again (the
 * send path asks it right before its claim: emails/send-email.ts). A skip at any step leaves the later
 * steps' room and allowance to the sends that go. A broadcast chunk acts on the whole broadcast
 * only after it has asked (broadcast-chunk.ts): a send the breaker holds pauses the broadcast, a
 * spent warm-up day moves its other due recipients to the next one.
 */

/** Who decides the send: journeys and broadcasts have holdouts and caps; a caller's own send (the API, a test send) has neither. */
export type AdmissionKind = 'journey' | 'broadcast' | 'caller';

export interface IntendedSend {
  /** the send's idempotency key: its cap claim is kept under it */
  key: string;
  to: string;
  /** whom the program holdout hashes: the user id, else the address */
  userId: string;
  /** the journey's or the broadcast's own holdout arm holds this person out */
  heldOut?: boolean;
  /** the journey's `suppress.hours` */
  suppressHours?: number | undefined;
  /** its email_sends row exists: an earlier attempt was admitted (asked the holdouts and the gate again, no claim) */
  admittedBefore?: boolean;
  /** its template's required data is missing (a broadcast recipient's): it cannot be sent */
  missingData?: boolean;
}

/** Intended sends of one category, decided together (a journey's send is a batch of one). */
export interface AdmissionBatch {
  kind: AdmissionKind;
  /** the category key the send is gated, capped and held out by */
  category: string;
  sends: readonly IntendedSend[];
}

export type AdmissionSkip =
  | { verdict: 'skip'; reason: 'holdout'; arm?: HoldoutArm }
  | { verdict: 'skip'; reason: SendBlockReason }
  | { verdict: 'skip'; reason: 'missing_data' }
  | { verdict: 'skip'; reason: 'frequency_cap'; cap: CappedSend };

export type AdmissionDefer =
  | { verdict: 'defer'; reason: 'reputation'; until: Date; provider: string }
  | { verdict: 'defer'; reason: 'frequency_cap'; until: Date; cap: CappedSend }
  | { verdict: 'defer'; reason: 'suppress_window'; until: Date }
  | { verdict: 'defer'; reason: 'warmup'; until: Date };

/** `capClaim`: the send holds cap room to release (`releaseCapClaims`) once the send path has answered. */
export type Admission = { verdict: 'send'; capClaim: boolean } | AdmissionSkip | AdmissionDefer;

/**
 * What the rules are asked against: the database's rows (`databaseAdmission` in
 * emails/database-admission.ts) or the test kit's in-memory world. Reads answer facts; the claims
 * are the only writes, made in the fixed order.
 */
export interface AdmissionPorts {
  now: Date;
  categories: Pick<PreferenceCategories, 'find'>;
  policy: DeliveryPolicy;
  /** REPUTATION_RECHECK_SECONDS: when a send the breaker holds looks again */
  reputationRecheckMs: number;
  /** the gate's aggregates of each address, keyed lower-cased (an address with no entry has no preference rows) */
  gate(addresses: readonly string[], category: GateCategory): Promise<ReadonlyMap<string, SendGateVerdicts>>;
  /** the mailbox provider whose paused breaker holds marketing mail to `to` (`reputationHold`), else undefined */
  reputationHold(to: string): Promise<string | undefined>;
  /** claims cap room for `sends` in list order: answers the sends over a cap, by key */
  claimCaps(sends: readonly IntendedSend[], category: string): Promise<ReadonlyMap<string, CappedSend>>;
  releaseCaps(keys: readonly string[]): Promise<void>;
  /** when the last journey email (other than this send) reached the send's address */
  lastJourneySentAt(send: IntendedSend): Promise<Date | undefined>;
  /** claims up to `want` sends of today's warm-up allowance: how many it got (`want` without a ramp), and when the rest may look again */
  claimWarmup(want: number): Promise<{ granted: number; until: Date }>;
}

/** How often a held send looks again when the deps set no REPUTATION_RECHECK_SECONDS. */
export const DEFAULT_REPUTATION_RECHECK_MS = 5 * 60_000;

const NO_PREFERENCES: SendGateVerdicts = { suppressed: null, unsubscribedAll: null, categoryOff: null };

/** The holdouts' verdict on one send (step 1). */
function holdoutSkip(policy: DeliveryPolicy, category: string, required: boolean, send: IntendedSend): AdmissionSkip | undefined {
  if (required) return undefined;
  if (send.heldOut === true) return { verdict: 'skip', reason: 'holdout' };
  const arm = programHoldout(policy, { required: () => required }, category, send.userId);
  return arm === undefined ? undefined : { verdict: 'skip', reason: 'holdout', arm };
}

/** Answers each send of `batch`, in order, by the rules in the order above. */
export async function admitSends(ports: AdmissionPorts, batch: AdmissionBatch): Promise<Admission[]> {
  // the one category resolution (send-category.ts): a declared category (its `required`), else a bare key
  const category = sendCategory(ports.categories, batch.category);
  const required = isRequired(category);
  const answers: (Admission | undefined)[] = batch.sends.map(() => undefined);
  const open = () => batch.sends.flatMap((send, index) => (answers[index] === undefined ? [{ send, index }] : []));
  const lifecycle = batch.kind !== 'caller';

  if (lifecycle) for (const { send, index } of open()) answers[index] = holdoutSkip(ports.policy, batch.category, required, send);

  const gated = open();
  if (gated.length > 0) {
    const verdicts = await ports.gate(
      gated.map(({ send }) => send.to),
      category,
    );
    for (const { send, index } of gated) {
      const gate = sendGateResult(verdicts.get(send.to.toLowerCase()) ?? NO_PREFERENCES, category);
      if (!gate.allowed) answers[index] = { verdict: 'skip', reason: gate.reason ?? 'suppressed' };
      // past the gate, a send admitted before goes on: it already took its claims
      else if (send.admittedBefore === true) answers[index] = { verdict: 'send', capClaim: false };
    }
  }

  for (const { send, index } of open()) if (send.missingData === true) answers[index] = { verdict: 'skip', reason: 'missing_data' };

  if (!required) {
    for (const { send, index } of open()) {
      const provider = await ports.reputationHold(send.to);
      if (provider !== undefined)
        answers[index] = { verdict: 'defer', reason: 'reputation', until: new Date(ports.now.getTime() + ports.reputationRecheckMs), provider };
    }
  }

  const claimed = new Set<string>();
  const capped = open();
  if (lifecycle && !required && capped.length > 0 && capsFor(ports.policy, batch.category).length > 0) {
    const over = await ports.claimCaps(
      capped.map(({ send }) => send),
      batch.category,
    );
    for (const { send, index } of capped) {
      const cap = over.get(send.key);
      if (cap === undefined) claimed.add(send.key);
      else if (cap.onCap === 'skip') answers[index] = { verdict: 'skip', reason: 'frequency_cap', cap };
      else answers[index] = { verdict: 'defer', reason: 'frequency_cap', until: cap.until, cap };
    }
  }

  for (const { send, index } of open()) {
    if (send.suppressHours === undefined || !(send.suppressHours > 0)) continue;
    const until = suppressWindowEnd(await ports.lastJourneySentAt(send), send.suppressHours, ports.now);
    if (until !== undefined) answers[index] = { verdict: 'defer', reason: 'suppress_window', until };
  }

  const ramped = open();
  if (!required && ramped.length > 0) {
    const { granted, until } = await ports.claimWarmup(ramped.length);
    for (const { index } of ramped.slice(granted)) answers[index] = { verdict: 'defer', reason: 'warmup', until };
  }

  // a send a step after the caps deferred gives its cap room back at once
  const released = batch.sends.filter((send, index) => claimed.has(send.key) && answers[index] !== undefined).map((send) => send.key);
  if (released.length > 0) await ports.releaseCaps(released);
  return answers.map((answer, index) => answer ?? { verdict: 'send', capClaim: claimed.has(batch.sends[index]!.key) });
}
