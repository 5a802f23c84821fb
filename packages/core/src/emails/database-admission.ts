import type { Db } from '../db/database';
import { reputationHold, type BreakerSnapshot } from '../deliverability/reputation-hold';
import { claimWarmup, nextWarmupDay } from '../deliverability/warmup';
import { DEFAULT_REPUTATION_RECHECK_MS, type AdmissionPorts } from '../delivery/admit-sends';
import { claimCapRoom, releaseCapClaims } from '../delivery/frequency-caps';
import { lastJourneySendAt } from '../delivery/suppress-window';
import { readSendGateVerdicts } from '../preferences/send-gate';
import type { EmailDeps } from './email-deps';

/**
 * admitSends's rules asked against the database (delivery/admit-sends.ts): the send gate's one
 * query for the batch, the breaker's snapshot (cached per process, or `breakers` when the caller
 * judged by one of its own), the cap claims, the suppress window's last journey send, the warm-up
 * day's row. `overrides`: what the caller already read or claims its own way (the journey step's
 * gate, read in its one statement; a broadcast chunk's warm-up claim inside its transaction).
 */
export function databaseAdmission(
  deps: EmailDeps,
  now: Date,
  overrides: Partial<AdmissionPorts> & { breakers?: BreakerSnapshot } = {},
  db: Db = deps.db,
): AdmissionPorts {
  const policy = deps.delivery.policy;
  const { breakers, ...ports } = overrides;
  return {
    now,
    categories: deps.categories,
    policy,
    reputationRecheckMs: deps.reputationRecheckMs ?? DEFAULT_REPUTATION_RECHECK_MS,
    gate: (addresses, category) => readSendGateVerdicts(db, addresses, category),
    reputationHold: async (to) => {
      const hold = reputationHold(breakers ?? (await deps.breakerStates.read()), { required: false, to });
      return hold.held ? hold.provider : undefined;
    },
    claimCaps: (sends, category) => claimCapRoom(db, policy, { sends: sends.map((send) => ({ idempotencyKey: send.key, email: send.to })), category, at: now }),
    releaseCaps: (keys) => releaseCapClaims(db, keys),
    lastJourneySentAt: (send) => lastJourneySendAt(db, { toEmail: send.to, excludeIdempotencyKey: send.key }),
    claimWarmup: async (want) => ({ granted: await claimWarmup(db, policy, want, now), until: nextWarmupDay(now) }),
    ...ports,
  };
}
