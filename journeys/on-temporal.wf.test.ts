import { holdoutArm, type Journey } from '@waymark/journey';
import {
  endJourneyTestRuns,
  startJourneyTestServer,
  stopJourneyTestServer,
  testJourney,
  testJourneyOnTemporal,
  type JourneyTestRun,
  type TestJourneyOptions,
} from '@waymark/journey-testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import firstProject from './first-project';
import paymentRecovery from './payment-recovery';
import reEngagement from './re-engagement';
import trialConversion from './trial-conversion';
import trialEnding from './trial-ending';
import welcomeSeries from './welcome-series';

/**
 * The kit's two modes agree: a representative path of each example journey runs on the
 * time-skipping server (the worker's workflow bundle) and in the fast mode (the same runner on a
 * virtual clock), and both give the same sends, statuses and journey logs. The journeys' own
 * tests (journeys/*.test.ts) cover every path in the fast mode.
 */
beforeAll(startJourneyTestServer);
afterEach(endJourneyTestRuns);
afterAll(stopJourneyTestServer);

type Start = (journey: Journey, options?: TestJourneyOptions) => Promise<JourneyTestRun>;

const MINUTE = 60_000;

/** A person in each arm of first-project (the arm is a hash of the user id, the same in both modes). */
const firstProjectUser = (heldOut: boolean) =>
  Array.from({ length: 100 }, (_, index) => `u-first-project-${index}`).find((id) => holdoutArm(firstProject, id)!.holdout === heldOut)!;

/**
 * What must be equal across the modes. Times are minutes after the trigger (a Temporal step starts
 * a few real milliseconds late); ids are random per run.
 */
function trace(t: JourneyTestRun, origin: Date) {
  // `|| 0`: -0 (a Temporal step a few ms before the origin was read) is 0
  const minutes = (at: Date | string) => Math.round((new Date(at).getTime() - origin.getTime()) / MINUTE) || 0;
  const detail = (value: Record<string, unknown> | undefined) =>
    value === undefined
      ? undefined
      : Object.fromEntries(
          Object.entries(value).map(([key, field]) => {
            if (key === 'emailSendId' || key === 'eventId') return [key, '<id>'];
            if (key === 'until') return [key, minutes(field as string)];
            if (key === 'trigger') return [key, (field as { event: string }).event];
            return [key, field];
          }),
        );
  return {
    status: t.status,
    skipReason: t.skipReason,
    error: t.error,
    sent: t.sent.map((email) => ({ ...email, at: minutes(email.at) })),
    logs: t.logs.map((log) => ({ action: log.action, node: log.node, detail: detail(log.detail), at: minutes(log.at) })),
  };
}

const paths: { name: string; status: string; run: (start: Start) => Promise<JourneyTestRun> }[] = [
  {
    name: 'welcome-series: a project created after entry → tips',
    status: 'completed',
    async run(start) {
      const t = await start(welcomeSeries, { trigger: { properties: { firstName: 'Ada' } } });
      await t.advance('1 day');
      await t.emit('project.created', { projectId: 'p1', name: 'Apollo' });
      await t.advance('1 day');
      return t;
    },
  },
  {
    name: 'trial-conversion: welcome deferred by suppress.hours, then pricing viewed during the wait',
    status: 'completed',
    async run(start) {
      const t = await start(trialConversion, { trigger: { properties: { plan: 'pro' } }, fakes: { lastEmailAgo: '2 hours' } });
      await t.advance('4 days');
      await t.emit('pricing.viewed');
      return t;
    },
  },
  {
    name: 're-engagement: exitOn where while waiting (a cancellation for another reason does not exit)',
    status: 'exited',
    async run(start) {
      const t = await start(reEngagement, { trigger: { properties: { daysInactive: 20 } } });
      await t.emit('subscription.cancelled', { reason: 'too_expensive' });
      await t.emit('subscription.cancelled', { reason: 'account_closed' });
      await t.advance('8 days');
      return t;
    },
  },
  {
    name: 'payment-recovery: no recovery → the final notice a week later',
    status: 'completed',
    async run(start) {
      const t = await start(paymentRecovery, { trigger: { properties: { amount: '$49.00' } } });
      await t.advance('2 days');
      await t.emit('subscription.updated', { status: 'past_due' });
      await t.advance('5 days');
      return t;
    },
  },
  {
    name: 'first-project: publishing on day 1 converts and ends the run: no nudge',
    status: 'exited',
    async run(start) {
      const t = await start(firstProject, { user: { userId: firstProjectUser(false) }, trigger: { properties: { projectId: 'p1', name: 'Atlas' } } });
      await t.advance('1 day');
      await t.emit('project.published', { projectId: 'p1' });
      await t.advance('2 days');
      expect(t.sent.map((email) => email.templateKey)).toEqual(['first-project-tips']);
      expect(t.converted?.event).toBe('project.published');
      return t;
    },
  },
  {
    name: 'first-project: a held-out person runs the same clock with every email skipped',
    status: 'completed',
    async run(start) {
      const t = await start(firstProject, { user: { userId: firstProjectUser(true) }, trigger: { properties: { projectId: 'p1' } } });
      await t.advance('2 days');
      expect(t.holdout).toBe(true);
      expect(t.sent).toEqual([]);
      return t;
    },
  },
  {
    name: 'payment-recovery: a send outage fails the run with its reason',
    status: 'failed',
    run: (start) => start(paymentRecovery, { fakes: { sendOutage: 'SES unreachable' } }),
  },
  {
    name: 'trial-ending: reminds now and two days later',
    status: 'completed',
    async run(start) {
      const t = await start(trialEnding, { trigger: { properties: { plan: 'pro_monthly', trial_end: 1_726_259_200 } } });
      await t.advance('2 days');
      return t;
    },
  },
  {
    // the entry goes with the run's first call on Temporal: a refused one makes no step
    name: 'welcome-series: a suppressed address is refused at entry',
    status: 'not_entered',
    run: (start) => start(welcomeSeries, { fakes: { suppressed: true } }),
  },
  {
    name: 'trial-conversion: trigger.where and entryLimit once refuse entries',
    status: 'not_entered',
    async run(start) {
      const first = await start(trialConversion, { trigger: { properties: { plan: 'free' } } });
      expect(first.skipReason).toBe('trigger_where');
      const entered = await start(trialConversion, { user: { userId: 'u-once' }, trigger: { properties: { plan: 'team' } } });
      await entered.advance('7 days');
      return entered.triggerAgain({ plan: 'team' });
    },
  },
];

describe('the fast mode and the time-skipping server agree', () => {
  for (const path of paths) {
    it(path.name, async () => {
      const traced = async (start: Start) => {
        let origin: Date | undefined;
        const t = await path.run(async (journey, options) => {
          const run = await start(journey, options);
          origin ??= await run.now();
          return run;
        });
        return trace(t, origin!);
      };
      const fast = await traced(testJourney);
      expect(fast.status).toBe(path.status);
      expect(await traced(testJourneyOnTemporal)).toEqual(fast);
    });
  }
});
