import { defineDeliveryPolicy, programHoldoutArm, type DeliveryPolicy } from '@waymark/journey';

/**
 * One table of intended sends and what becomes of each (delivery/admit-sends.ts), run through the
 * journey test kit's world (temporal/simulation/admission-scenarios.test.ts) and through the real
 * database by both send paths, a journey's email step and a broadcast's chunk
 * (packages/core/src/delivery/admit-sends.int.test.ts): all must give the same answers, so neither
 * the kit nor a send path can drift from the one order again.
 */
export interface AdmissionScenario {
  name: string;
  /** who the person is and what reached them before */
  person?: {
    suppressed?: boolean;
    unsubscribed?: 'all' | string[];
    /** the reputation breaker paused marketing mail to the person's mailbox provider */
    reputationPaused?: boolean;
    /** today's warm-up allowance is used up */
    warmupSpent?: boolean;
    /** a journey email reached the address this many hours ago */
    lastJourneyEmailHoursAgo?: number;
    /** emails of these categories reached the address an hour ago (what the caps count) */
    sentBefore?: string[];
  };
  send: { category: string; holdout?: boolean; suppressHours?: number };
  /** the delivery policy (default: none) */
  policy?: DeliveryPolicy;
  /** `send`, `skip:<reason>` or `defer:<reason>` */
  expected: string;
  /** why the scenario means nothing to a broadcast, which then does not run it */
  journeyOnly?: string;
}

const oneJourneyEmailADay = { category: 'journey', max: 1, per: '1d', onCap: 'skip' } as const;
const skipCap = defineDeliveryPolicy({ caps: [oneJourneyEmailADay] });
const delayCap = defineDeliveryPolicy({ caps: [{ category: '*', max: 1, per: '1d', onCap: 'delay' }] });
const programHoldout = defineDeliveryPolicy({ holdout: { percent: 50, categories: ['journey'] } });
/** a ramp whose first day lets one marketing send through */
const firstDayOfOne = { startPerDay: 1, growth: 2, until: 1_000 };
const warmup = defineDeliveryPolicy({ warmup: firstDayOfOne });
const skipCapAndWarmup = defineDeliveryPolicy({ caps: [oneJourneyEmailADay], warmup: firstDayOfOne });
/** broadcasts have no suppress window: `suppress.hours` is a journey's own */
const suppressWindowOnly = 'a broadcast has no suppress window (`suppress.hours` is a journey setting)';

/** The first of `<prefix>-0`, `<prefix>-1`, … that `heldOut` holds out. */
export function firstHeldOut(prefix: string, heldOut: (userId: string) => boolean): string {
  return Array.from({ length: 1_000 }, (_, index) => `${prefix}-${index}`).find(heldOut)!;
}

export const admissionScenarios: readonly AdmissionScenario[] = [
  { name: 'nothing stands in the way', send: { category: 'journey' }, expected: 'send' },
  { name: 'unsubscribed from all, a required category', person: { unsubscribed: 'all' }, send: { category: 'transactional' }, expected: 'send' },
  { name: 'unsubscribed from all, the journey category', person: { unsubscribed: 'all' }, send: { category: 'journey' }, expected: 'skip:unsubscribed_all' },
  { name: 'the category turned off', person: { unsubscribed: ['journey'] }, send: { category: 'journey' }, expected: 'skip:category_unsubscribed' },
  { name: 'another category turned off', person: { unsubscribed: ['newsletter'] }, send: { category: 'journey' }, expected: 'send' },
  { name: 'suppressed (a bounce), even a required category', person: { suppressed: true }, send: { category: 'transactional' }, expected: 'skip:suppressed' },
  { name: 'over a skip cap', person: { sentBefore: ['journey'] }, send: { category: 'journey' }, policy: skipCap, expected: 'skip:frequency_cap' },
  { name: 'over a delay cap', person: { sentBefore: ['newsletter'] }, send: { category: 'journey' }, policy: delayCap, expected: 'defer:frequency_cap' },
  { name: 'a required category is never capped', person: { sentBefore: ['journey'] }, send: { category: 'transactional' }, policy: delayCap, expected: 'send' },
  {
    name: 'the gate goes before the caps',
    person: { unsubscribed: 'all', sentBefore: ['journey'] },
    send: { category: 'journey' },
    policy: skipCap,
    expected: 'skip:unsubscribed_all',
  },
  { name: 'in the journey holdout', send: { category: 'journey', holdout: true }, expected: 'skip:holdout' },
  { name: 'the holdouts go before the gate', person: { unsubscribed: 'all' }, send: { category: 'journey', holdout: true }, expected: 'skip:holdout' },
  { name: 'a required category is never held out', send: { category: 'transactional', holdout: true }, expected: 'send' },
  { name: 'in the program holdout', send: { category: 'journey' }, policy: programHoldout, expected: 'skip:holdout' },
  { name: 'reputation-paused marketing mail', person: { reputationPaused: true }, send: { category: 'journey' }, expected: 'defer:reputation' },
  {
    name: 'the holdouts go before the reputation hold',
    person: { reputationPaused: true },
    send: { category: 'journey', holdout: true },
    expected: 'skip:holdout',
  },
  {
    name: 'the gate goes before the reputation hold',
    person: { unsubscribed: 'all', reputationPaused: true },
    send: { category: 'journey' },
    expected: 'skip:unsubscribed_all',
  },
  { name: 'reputation-paused, a required category', person: { reputationPaused: true }, send: { category: 'transactional' }, expected: 'send' },
  { name: 'the warm-up allowance is spent', person: { warmupSpent: true }, send: { category: 'journey' }, policy: warmup, expected: 'defer:warmup' },
  { name: 'warm-up spent, a required category', person: { warmupSpent: true }, send: { category: 'transactional' }, policy: warmup, expected: 'send' },
  {
    name: 'the gate goes before the warm-up',
    person: { unsubscribed: ['journey'], warmupSpent: true },
    send: { category: 'journey' },
    policy: warmup,
    expected: 'skip:category_unsubscribed',
  },
  {
    name: 'the caps go before the warm-up',
    person: { sentBefore: ['journey'], warmupSpent: true },
    send: { category: 'journey' },
    policy: skipCapAndWarmup,
    expected: 'skip:frequency_cap',
  },
  {
    name: 'inside the suppress window',
    person: { lastJourneyEmailHoursAgo: 1 },
    send: { category: 'journey', suppressHours: 2 },
    expected: 'defer:suppress_window',
    journeyOnly: suppressWindowOnly,
  },
  {
    name: 'past the suppress window',
    person: { lastJourneyEmailHoursAgo: 3 },
    send: { category: 'journey', suppressHours: 2 },
    expected: 'send',
    journeyOnly: suppressWindowOnly,
  },
  {
    name: 'the caps go before the suppress window',
    person: { sentBefore: ['journey'], lastJourneyEmailHoursAgo: 1 },
    send: { category: 'journey', suppressHours: 2 },
    policy: skipCap,
    expected: 'skip:frequency_cap',
    journeyOnly: suppressWindowOnly,
  },
];

/**
 * The user id a scenario's send is for, among `<prefix>-…`: the program holdout scenario's is held
 * out of `journey` by it.
 */
export function scenarioUserId(scenario: AdmissionScenario, prefix = 'user'): string {
  const policy = scenario.policy;
  if (policy?.holdout === undefined) return `${prefix}-admitted`;
  return firstHeldOut(prefix, (userId) => programHoldoutArm(policy, 'journey', userId)?.holdout === true);
}
