import { describe, expect, it } from 'vitest';
import { definePreferenceCategories } from '@waymark/email/preference-categories';
import { defineDeliveryPolicy, NO_DELIVERY_POLICY, type DeliveryPolicy } from '@waymark/journey';
import { admitSends, type AdmissionPorts, type IntendedSend } from './admit-sends';
import type { SendGateVerdicts } from '../preferences/send-gate';
import type { CappedSend } from './frequency-caps';

const categories = definePreferenceCategories([
  { key: 'journey', label: 'Journey', description: 'Journey emails.' },
  { key: 'receipts', label: 'Receipts', description: 'Receipts.', required: true },
]);
const now = new Date('2026-12-01T12:00:00Z');

/** Ports over memory that record what was claimed and released. */
function ports(
  policy: DeliveryPolicy,
  options: { warmupLeft?: number; over?: ReadonlyMap<string, 'skip' | 'delay'>; gate?: ReadonlyMap<string, SendGateVerdicts> } = {},
) {
  const calls = { caps: [] as string[][], released: [] as string[][], warmup: [] as number[], gate: [] as string[][] };
  let left = options.warmupLeft;
  const answered: AdmissionPorts = {
    now,
    categories,
    policy,
    reputationRecheckMs: 60_000,
    gate: async (addresses) => {
      calls.gate.push([...addresses]);
      return options.gate ?? new Map();
    },
    reputationHold: async () => undefined,
    claimCaps: async (sends) => {
      calls.caps.push(sends.map((send) => send.key));
      const over = new Map<string, CappedSend>();
      for (const send of sends) {
        const onCap = options.over?.get(send.key);
        if (onCap !== undefined) over.set(send.key, { onCap, cap: policy.caps[0]!, until: new Date(now.getTime() + 3_600_000) });
      }
      return over;
    },
    releaseCaps: async (keys) => void calls.released.push([...keys]),
    lastJourneySentAt: async () => undefined,
    claimWarmup: async (want) => {
      calls.warmup.push(want);
      const until = new Date('2026-12-02T00:00:00Z');
      if (left === undefined) return { granted: want, until };
      const granted = Math.min(want, left);
      left -= granted;
      return { granted, until };
    },
  };
  return { ports: answered, calls };
}

const send = (key: string, extra: Partial<IntendedSend> = {}): IntendedSend => ({ key, to: `${key}@example.com`, userId: key, ...extra });
const capped = defineDeliveryPolicy({ caps: [{ category: 'journey', max: 1, per: '1d', onCap: 'skip' }] });

describe('admitSends', () => {
  it('lets the first sends of a batch through today’s warm-up allowance and defers the rest to the next UTC day', async () => {
    const { ports: answered } = ports(NO_DELIVERY_POLICY, { warmupLeft: 2 });
    const answers = await admitSends(answered, { kind: 'broadcast', category: 'journey', sends: [send('a'), send('b'), send('c')] });
    expect(answers).toEqual([
      { verdict: 'send', capClaim: false },
      { verdict: 'send', capClaim: false },
      { verdict: 'defer', reason: 'warmup', until: new Date('2026-12-02T00:00:00Z') },
    ]);
  });

  it('claims cap room for the sends past the gate, and gives back the claim of a send a later step defers', async () => {
    const { ports: answered, calls } = ports(capped, { warmupLeft: 1, over: new Map([['b', 'skip']]) });
    const answers = await admitSends(answered, { kind: 'journey', category: 'journey', sends: [send('a'), send('b'), send('c')] });
    expect(answers.map((answer) => `${answer.verdict}:${'reason' in answer ? answer.reason : answer.capClaim}`)).toEqual([
      'send:true',
      'skip:frequency_cap',
      'defer:warmup',
    ]);
    expect(calls.caps).toEqual([['a', 'b', 'c']]);
    expect(calls.released).toEqual([['c']]);
  });

  it('asks a send admitted before the holdouts and the gate again, but claims nothing again', async () => {
    const gate = new Map<string, SendGateVerdicts>([
      ['c@example.com', { suppressed: true, unsubscribedAll: null, categoryOff: null }],
      ['d@example.com', { suppressed: false, unsubscribedAll: true, categoryOff: null }],
    ]);
    const { ports: answered, calls } = ports(capped, { warmupLeft: 0, gate });
    const answers = await admitSends(answered, {
      kind: 'journey',
      category: 'journey',
      sends: ['a', 'b', 'c', 'd'].map((key) => send(key, { admittedBefore: true, heldOut: key === 'b' })),
    });
    expect(answers).toEqual([
      { verdict: 'send', capClaim: false },
      { verdict: 'skip', reason: 'holdout' },
      { verdict: 'skip', reason: 'suppressed' },
      { verdict: 'skip', reason: 'unsubscribed_all' },
    ]);
    expect(calls).toMatchObject({ gate: [['a@example.com', 'c@example.com', 'd@example.com']], caps: [], warmup: [] });

    // a required category: the gate's own rule, so only the suppression refuses it
    const required = await admitSends(ports(capped, { warmupLeft: 0, gate }).ports, {
      kind: 'caller',
      category: 'receipts',
      sends: ['c', 'd'].map((key) => send(key, { admittedBefore: true })),
    });
    expect(required).toEqual([
      { verdict: 'skip', reason: 'suppressed' },
      { verdict: 'send', capClaim: false },
    ]);
  });

  it('holds out and caps no caller’s own send', async () => {
    const { ports: answered, calls } = ports(capped);
    const answers = await admitSends(answered, { kind: 'caller', category: 'journey', sends: [send('a', { heldOut: true })] });
    expect(answers).toEqual([{ verdict: 'send', capClaim: false }]);
    expect(calls.caps).toEqual([]);
  });

  it('never claims warm-up allowance nor cap room for a required category', async () => {
    const { ports: answered, calls } = ports(defineDeliveryPolicy({ caps: [{ category: '*', max: 1, per: '1d', onCap: 'skip' }] }), { warmupLeft: 0 });
    const answers = await admitSends(answered, { kind: 'journey', category: 'receipts', sends: [send('a', { heldOut: true })] });
    expect(answers).toEqual([{ verdict: 'send', capClaim: false }]);
    expect(calls).toMatchObject({ caps: [], warmup: [] });
  });
});
