import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { defineDeliveryPolicy, defineJourney, holdoutArm } from '@waymark/journey';
import firstProject from '@waymark/journeys/first-project';
import paymentRecovery from '@waymark/journeys/payment-recovery';
import type { JourneyRunCalls } from '../journey-calls';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadTemplateRegistry } from './fake-world';
import { simulateJourney } from './simulate';
import { VirtualClock } from './virtual-clock';
import { virtualRuntime } from './virtual-runtime';

// the React Email registry takes seconds to import on a busy box: not a test's time
beforeAll(loadTemplateRegistry);

const DAY = 86_400_000;
const start = Date.UTC(2026, 10, 1);
const at = (days: number) => new Date(start + days * DAY);

describe('simulateJourney (one virtual timeline)', () => {
  it('runs exitOn where while waiting: only the matching property value exits', async () => {
    const subjects = ['past_due', 'active', undefined].map((status, i) => ({
      userId: `u${i}`,
      email: `u${i}@example.com`,
      trigger: { at: at(i), properties: { amount: '$10.00' } },
      later: status === undefined ? [] : [{ name: 'subscription.updated', at: at(i + 3), properties: { status } }],
    }));
    const report = await simulateJourney(paymentRecovery, subjects, { until: at(20) });
    expect(report.statuses).toEqual({ completed: 2, exited: 1 });
    expect(report.exits).toEqual({ 'subscription.updated': 1 });
    expect(report.samples['exited:subscription.updated']).toEqual(['u1']);
    expect(report.sentByTemplate).toEqual({ 'payment-failed': 3, 'payment-final-notice': 2 });
    expect(report.byNode).toEqual({ 'payment-failed': 3, 'final-notice': 2 });
  });

  it('leaves a run that is still in its grace period waiting at the end of the window', async () => {
    const report = await simulateJourney(paymentRecovery, [{ userId: 'late', email: 'late@example.com', trigger: { at: at(15), properties: {} }, later: [] }], {
      until: at(20),
    });
    expect(report.statuses).toEqual({ waiting: 1 });
    expect(report.sentByTemplate).toEqual({ 'payment-failed': 1 });
  });
});

describe('simulateJourney: goals and holdouts', () => {
  it('reports enrollments and conversions per arm; held-out people are sent nothing', async () => {
    const ids = Array.from({ length: 40 }, (_, i) => `p${i}`);
    const held = ids.filter((id) => holdoutArm(firstProject, id)!.holdout);
    // everyone publishes on day 1 but the last ten, who publish after the 14-day window
    const subjects = ids.map((userId, i) => ({
      userId,
      email: `${userId}@example.com`,
      trigger: { at: at(0), properties: { projectId: userId } },
      later: [{ name: 'project.published', at: at(i < 30 ? 1 : 15), properties: { projectId: userId } }],
    }));
    const report = await simulateJourney(firstProject, subjects, { until: at(20) });
    const convertedHeld = held.filter((id) => Number(id.slice(1)) < 30).length;
    expect(report.arms).toEqual({
      treatment: { enrolled: 40 - held.length, converted: 30 - convertedHeld },
      holdout: { enrolled: held.length, converted: convertedHeld },
    });
    expect(report.sentByTemplate['first-project-tips']).toBe(40 - held.length);
    // converted on day 1: the goal ended their runs before the nudge
    expect(report.sentByTemplate['first-project-nudge']).toBe(ids.slice(30).filter((id) => !held.includes(id)).length);
  });
});

describe('simulateJourney: time zones and the delivery policy', () => {
  const welcomeNow = defineJourney({
    id: 'sim-welcome',
    name: 'sim-welcome',
    description: 'one email at once',
    trigger: { event: 'user.signed_up' },
    run: async (ctx) => {
      await ctx.sendEmail('welcome', { data: { firstName: null } });
    },
  });
  const lateEvening = new Date('2026-11-10T22:30:00Z');
  const subject = (userId: string, extra: object = {}) => ({
    userId,
    email: `${userId}@example.com`,
    trigger: { at: lateEvening, properties: {} },
    later: [],
    ...extra,
  });

  it("runs each person on their own clock: the policy's quiet hours hold Paris at 23:30, not Los Angeles at 14:30", async () => {
    const policy = defineDeliveryPolicy({ quietHours: { from: '21:00', to: '08:00' } });
    const report = await simulateJourney(welcomeNow, [subject('paris', { timeZone: 'Europe/Paris' }), subject('la', { timeZone: 'America/Los_Angeles' })], {
      until: new Date('2026-11-11T01:00:00Z'),
      policy,
    });
    expect(report.samples['status:waiting']).toEqual(['paris']);
    expect(report.samples['status:completed']).toEqual(['la']);
    // DEFAULT_TIMEZONE for a person without one
    const byDefault = await simulateJourney(welcomeNow, [subject('nowhere')], {
      until: new Date('2026-11-11T01:00:00Z'),
      policy,
      defaultTimeZone: 'Asia/Tokyo',
    });
    expect(byDefault.statuses).toEqual({ completed: 1 });
  });

  it("reports the sends the policy's caps would skip or delay, counting the person's other emails", async () => {
    const otherSends = [{ at: new Date(lateEvening.getTime() - 3_600_000), category: 'journey' }];
    const subjects = [subject('capped', { otherSends }), subject('free')];
    const skip = defineDeliveryPolicy({ caps: [{ category: 'journey', max: 1, per: '24h', onCap: 'skip' }] });
    const skipped = await simulateJourney(welcomeNow, subjects, { until: at(20), policy: skip });
    expect(skipped.frequencyCaps).toEqual({ skipped: 1, delayed: 0 });
    expect(skipped.samples['frequency_cap:skipped']).toEqual(['capped']);
    expect(skipped.sentByTemplate).toEqual({ welcome: 1 });
    const delay = defineDeliveryPolicy({ caps: [{ category: 'journey', max: 1, per: '24h', onCap: 'delay' }] });
    const delayed = await simulateJourney(welcomeNow, subjects, { until: at(20), policy: delay });
    expect(delayed.frequencyCaps).toEqual({ skipped: 0, delayed: 1 });
    expect(delayed.sentByTemplate).toEqual({ welcome: 2 });
  });
});

describe('virtualRuntime', () => {
  const calls = (send: JourneyRunCalls['sendJourneyEmail']) => ({ sendJourneyEmail: send }) as unknown as JourneyRunCalls;

  it('retries a call that asks for it (nextRetryDelay) at that virtual time, as Temporal retries the suppress window', async () => {
    const clock = new VirtualClock(0);
    const attempts: number[] = [];
    const runtime = virtualRuntime(
      clock,
      calls(async () => {
        attempts.push(clock.now());
        if (attempts.length === 1) throw ApplicationFailure.create({ message: 'window', nextRetryDelay: 5_000 });
        return { status: 'sent', emailSendId: 'e1' };
      }),
      { workflowId: 'w', runId: 'r' },
    );
    const sent = runtime.calls.sendJourneyEmail({} as never);
    await clock.runUntil(60_000);
    await expect(sent).resolves.toEqual({ status: 'sent', emailSendId: 'e1' });
    expect(attempts).toEqual([0, 5_000]);
  });

  it('fails a call for good with the cause, and cancels a pending timer as a Temporal cancellation', async () => {
    const clock = new VirtualClock(0);
    const runtime = virtualRuntime(
      clock,
      calls(async () => {
        throw ApplicationFailure.nonRetryable('provider down');
      }),
      { workflowId: 'w', runId: 'r' },
    );
    await expect(runtime.calls.sendJourneyEmail({} as never)).rejects.toMatchObject({ cause: { message: 'provider down' } });
    const sleeping = runtime.sleep(DAY);
    runtime.cancel();
    await expect(sleeping).rejects.toBeInstanceOf(CancelledFailure);
    expect(runtime.cancelled()).toBe(true);
    await expect(runtime.condition(() => true, 1)).rejects.toBeInstanceOf(CancelledFailure);
  });
});
