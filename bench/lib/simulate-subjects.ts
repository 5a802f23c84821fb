import type { SimulationInput } from '@waymark/temporal/simulation/simulate';

const DAY = 86_400_000;

/**
 * Trial-conversion histories over November: half pro, half team; a third subscribe a day in (exit),
 * a third view pricing during the wait (follow-up), a third never do (last chance).
 */
export function trialSubjects(count: number): SimulationInput[] {
  const start = Date.UTC(2026, 10, 1);
  return Array.from({ length: count }, (_, i) => {
    const at = new Date(start + (i % 19) * DAY + ((i * 7_919) % DAY));
    const later =
      i % 3 === 0
        ? [{ name: 'subscription.started', at: new Date(at.getTime() + DAY), properties: {} }]
        : i % 3 === 1
          ? [{ name: 'pricing.viewed', at: new Date(at.getTime() + 4 * DAY), properties: {} }]
          : [];
    return { userId: `bench-${i}`, email: `bench-${i}@example.com`, trigger: { at, properties: { plan: i % 2 === 0 ? 'pro' : 'team' } }, later };
  });
}

export const SIMULATION_UNTIL = new Date(Date.UTC(2026, 11, 1));
