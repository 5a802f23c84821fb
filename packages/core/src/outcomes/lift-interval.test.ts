import { describe, expect, it } from 'vitest';
import { type ArmCounts, liftOf } from './lift-interval';

/** mulberry32: a small seeded generator, so every run draws the same populations. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Population {
  holdoutShare: number;
  holdoutRate: number;
  treatmentRate: number;
}

/** Adds `people` arrivals to the two arms, each assigned and converting at random. */
function arrive(random: () => number, people: number, population: Population, arms: { treatment: ArmCounts; holdout: ArmCounts }) {
  for (let i = 0; i < people; i++) {
    const heldOut = random() < population.holdoutShare;
    const arm = heldOut ? arms.holdout : arms.treatment;
    arm.enrolled += 1;
    if (random() < (heldOut ? population.holdoutRate : population.treatmentRate)) arm.converted += 1;
  }
}

const emptyArms = () => ({ treatment: { enrolled: 0, converted: 0 }, holdout: { enrolled: 0, converted: 0 } });

describe('liftOf', () => {
  it('is null until both arms have people, and reads the rates', () => {
    expect(liftOf({ enrolled: 10, converted: 1 }, { enrolled: 0, converted: 0 })).toBeNull();
    const lift = liftOf({ enrolled: 800, converted: 120 }, { enrolled: 200, converted: 20 })!;
    expect(lift.absolute).toBeCloseTo(0.05, 10);
    expect(lift.relative).toBeCloseTo(0.5, 10);
    expect(lift.ci95[0]).toBeLessThan(0.05);
    expect(lift.ci95[1]).toBeGreaterThan(0.05);
  });

  it('has no relative lift while the holdout has no conversion, and still a real interval', () => {
    const lift = liftOf({ enrolled: 40, converted: 2 }, { enrolled: 10, converted: 0 })!;
    expect(lift.relative).toBeNull();
    expect(lift.ci95[1] - lift.ci95[0]).toBeGreaterThan(0);
  });

  it('covers the true effect in at least 185 of 200 populations with a known lift', () => {
    const population: Population = { holdoutShare: 0.2, holdoutRate: 0.1, treatmentRate: 0.13 };
    const truth = population.treatmentRate - population.holdoutRate;
    let covered = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const arms = emptyArms();
      arrive(seeded(seed), 5_000, population, arms);
      const [low, high] = liftOf(arms.treatment, arms.holdout)!.ci95;
      if (low <= truth && truth <= high) covered += 1;
    }
    expect(covered).toBeGreaterThanOrEqual(185);
  });

  it('declares at most 5 % of populations without an effect significant, looked at every day for 30 days', () => {
    const population: Population = { holdoutShare: 0.2, holdoutRate: 0.08, treatmentRate: 0.08 };
    let everSignificant = 0;
    for (let seed = 1001; seed <= 1200; seed++) {
      const random = seeded(seed);
      const arms = emptyArms();
      let significant = false;
      for (let day = 1; day <= 30; day++) {
        arrive(random, 150, population, arms);
        const [low, high] = liftOf(arms.treatment, arms.holdout)!.ci95;
        if (low > 0 || high < 0) significant = true;
      }
      if (significant) everSignificant += 1;
    }
    expect(everSignificant).toBeLessThanOrEqual(10);
  });

  it('is wrong far less often than a fixed-sample interval read every day (the reason for the method)', () => {
    const population: Population = { holdoutShare: 0.2, holdoutRate: 0.08, treatmentRate: 0.08 };
    let naive = 0;
    let sequential = 0;
    for (let seed = 2001; seed <= 2200; seed++) {
      const random = seeded(seed);
      const arms = emptyArms();
      let naiveHit = false;
      let sequentialHit = false;
      for (let day = 1; day <= 30; day++) {
        arrive(random, 150, population, arms);
        const lift = liftOf(arms.treatment, arms.holdout)!;
        const p1 = arms.treatment.converted / arms.treatment.enrolled;
        const p0 = arms.holdout.converted / arms.holdout.enrolled;
        const se = Math.sqrt((p1 * (1 - p1)) / arms.treatment.enrolled + (p0 * (1 - p0)) / arms.holdout.enrolled);
        if (Math.abs(lift.absolute) > 1.96 * se) naiveHit = true;
        if (lift.ci95[0] > 0 || lift.ci95[1] < 0) sequentialHit = true;
      }
      if (naiveHit) naive += 1;
      if (sequentialHit) sequential += 1;
    }
    expect(naive).toBeGreaterThan(20);
    expect(sequential).toBeLessThan(naive / 2);
  });
});
