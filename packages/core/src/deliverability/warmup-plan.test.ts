import { describe, expect, it } from 'vitest';
import { DEFAULT_REPUTATION_THRESHOLDS } from '@waymark/journey';
import type { WindowCounts } from './breaker-verdict';
import { planWarmupDay, warmupAllowance } from './warmup-plan';

const plan = { startPerDay: 50, growth: 1.5, until: 100_000 };

/**
 * Ten days of a ramp on a virtual clock: each day a backlog far larger than the allowance asks to
 * be sent, in several batches (journey sends and broadcast chunks arriving through the day), and
 * the day's results (`bounceRateOn`: the bounce rate a day draws) feed the next day's allowance.
 */
function simulate(days: number, bounceRateOn: (day: number) => number): number[] {
  const history: WindowCounts[] = [];
  const sentPerDay: number[] = [];
  const backlog = Array.from({ length: 100_000 }, (_, i) => ({ id: i, humanOpens: i % 7, humanClicks: i % 3 }));
  for (let day = 0; day < days; day++) {
    const allowance = warmupAllowance(plan, history, DEFAULT_REPUTATION_THRESHOLDS);
    let used = 0;
    for (let batch = 0; batch < 8; batch++) {
      const { send } = planWarmupDay(backlog.slice(batch * 1_000, batch * 1_000 + 1_000), allowance, used);
      used += send.length;
    }
    sentPerDay.push(used);
    const bounces = Math.round(used * bounceRateOn(day));
    history.push({ sends: used, bounces, complaints: 0 });
  }
  return sentPerDay;
}

describe('the warm-up ramp', () => {
  it('a 10-day plan from 50/day growing 1.5× is met within ±2 % each day', () => {
    const sent = simulate(10, () => 0.01);
    sent.forEach((count, day) => {
      const planned = 50 * 1.5 ** day;
      expect(Math.abs(count - planned) / planned, `day ${day}: ${count} sent, ${planned} planned`).toBeLessThanOrEqual(0.02);
    });
  });

  it('a day with 6 % bounces does not grow the next; the ramp goes on after it', () => {
    const sent = simulate(6, (day) => (day === 2 ? 0.06 : 0));
    expect(sent[3]).toBe(sent[2]);
    expect(sent.slice(2, 5)).toEqual([113, 113, 169]); // 50 × 1.5², held, then 50 × 1.5³
  });

  it('sends to the most engaged first, and is over once the allowance reaches `until`', () => {
    const people = [
      { id: 'cold', humanOpens: 0, humanClicks: 0 },
      { id: 'opener', humanOpens: 2, humanClicks: 0 },
      { id: 'clicker', humanOpens: 1, humanClicks: 2 },
    ];
    expect(planWarmupDay(people, 2, 0).send.map((person) => person.id)).toEqual(['clicker', 'opener']);
    expect(planWarmupDay(people, 2, 1).send.map((person) => person.id)).toEqual(['clicker']);
    expect(warmupAllowance({ startPerDay: 50, growth: 2, until: 200 }, [{ sends: 50, bounces: 0, complaints: 0 }], DEFAULT_REPUTATION_THRESHOLDS)).toBe(100);
    const twoGoodDays = Array.from({ length: 2 }, () => ({ sends: 50, bounces: 0, complaints: 0 }));
    expect(warmupAllowance({ startPerDay: 50, growth: 2, until: 200 }, twoGoodDays, DEFAULT_REPUTATION_THRESHOLDS)).toBeUndefined();
  });
});
