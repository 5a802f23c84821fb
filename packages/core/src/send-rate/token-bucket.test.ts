import { describe, expect, it } from 'vitest';
import { bucketShape, reserveSlot, slotsAhead } from './token-bucket';

/** Takes `count` tokens at `now` and answers their slots. */
function take(count: number, now: number, ratePerSecond: number, tat?: number): { slots: number[]; tat: number | undefined } {
  const shape = bucketShape(ratePerSecond);
  const slots: number[] = [];
  let current = tat;
  for (let n = 0; n < count; n += 1) {
    const slot = reserveSlot(current, now, shape);
    slots.push(slot.startAt);
    current = slot.tat;
  }
  return { slots, tat: current };
}

describe('the send-rate token bucket (GCRA)', () => {
  it('sizes the burst at a tenth of a second, at least one token', () => {
    expect(bucketShape(50)).toEqual({ intervalMs: 20, burst: 5 });
    expect(bucketShape(14)).toEqual({ intervalMs: 1000 / 14, burst: 1 });
    expect(bucketShape(0.5)).toEqual({ intervalMs: 2000, burst: 1 });
  });

  it('lets the burst go at once, then one token per interval, in the order asked', () => {
    const { slots } = take(8, 1_000, 50);
    expect(slots).toEqual([1_000, 1_000, 1_000, 1_000, 1_000, 1_020, 1_040, 1_060]);
  });

  it('holds the rate over a second: 50 per second gives the 55th token (50 + burst) just after one second', () => {
    const { slots } = take(60, 0, 50);
    expect(slots.filter((slot) => slot < 1_000)).toHaveLength(54);
    expect(slots[54]).toBe(1_000);
  });

  it('refills while idle, never past the burst', () => {
    const first = take(10, 0, 50);
    // 10 s idle: the bucket is full again, and only the burst goes at once
    const later = take(7, 10_000, 50, first.tat);
    expect(later.slots).toEqual([10_000, 10_000, 10_000, 10_000, 10_000, 10_020, 10_040]);
  });

  it('counts the tokens handed out for later as waiting sends', () => {
    const shape = bucketShape(50);
    expect(slotsAhead(undefined, 0, shape)).toBe(0);
    const { tat } = take(105, 0, 50);
    // 105 tokens: 5 of burst at 0, then 100 spread over 2 s; at 0 all but the burst wait
    expect(slotsAhead(tat, 0, shape)).toBe(100);
    expect(slotsAhead(tat, 1_000, shape)).toBe(50);
    expect(slotsAhead(tat, 5_000, shape)).toBe(0);
  });

  it('a shared bucket is one queue: two takers interleaved keep one interval apart', () => {
    const shape = bucketShape(10);
    let tat: number | undefined;
    const slots: number[] = [];
    for (let n = 0; n < 6; n += 1) {
      const slot = reserveSlot(tat, 0, shape);
      tat = slot.tat;
      slots.push(slot.startAt);
    }
    expect(slots).toEqual([0, 100, 200, 300, 400, 500]);
  });
  it('a send worth two tokens holds the next one back two intervals: a stream of them goes at half the rate', () => {
    const shape = bucketShape(10);
    let tat: number | undefined;
    const slots: number[] = [];
    for (const tokens of [2, 2, 2, 1, 1]) {
      const slot = reserveSlot(tat, 0, shape, tokens);
      tat = slot.tat;
      slots.push(slot.startAt);
    }
    expect(slots).toEqual([0, 200, 400, 600, 700]);
  });
});
