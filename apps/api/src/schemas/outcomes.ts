import { z } from 'zod';

/** The arms and lift of an outcome, shared by a journey's outcomes and a broadcast's `stats.goal` (docs/journeys.md, "Goals, holdouts and lift"). */
const count = z.number().int().nonnegative();

export const outcomeArm = z
  .object({
    enrolled: count.describe('people in the arm: who entered the journey, or whose turn in the broadcast came'),
    converted: count.describe('of them, people whose goal event arrived within the goal window'),
    conversionRate: z.number().describe('converted / enrolled (0 while nobody is in the arm)'),
    value: z.number().describe("the sum of the conversions' values (the goal's `value`; 0 for a broadcast)"),
    valuePerPerson: z.number().describe('value / enrolled'),
  })
  .meta({ id: 'OutcomeArm' });

export const outcomeArms = z.object({ treatment: outcomeArm, holdout: outcomeArm.nullable().describe('null: nobody is held out') });

export const outcomeLift = z
  .object({
    absolute: z.number().describe('treatment rate minus holdout rate (0.021 is +2.1 points)'),
    relative: z.number().nullable().describe('absolute / holdout rate; null while the holdout has no conversion'),
    // an array of two rather than a tuple: the studio's generated client reads a tuple in a
    // response as number[], which then differs from the component type the pages use
    ci95: z
      .array(z.number())
      .length(2)
      .describe('[low, high]: an always-valid 95 % interval of `absolute`, valid however often it is read while the experiment runs'),
    method: z.string(),
  })
  .meta({ id: 'OutcomeLift' });

const dayArm = z
  .object({
    enrolled: count.describe('a journey: people who entered that day; a broadcast: recipients exposed that day (their turn came)'),
    converted: count.describe('a journey: of them, people who converted (whenever they did); a broadcast: recipients who converted that day'),
  })
  .meta({ id: 'OutcomeDayArm' });

/** One UTC day of `daily`, a journey's outcomes' and a broadcast's `stats.goal`'s: the series the studio's chart draws. */
export const outcomeDay = z
  .object({
    day: z.string().describe('a UTC day, YYYY-MM-DD'),
    treatment: dayArm,
    holdout: dayArm.nullable().describe('null: nobody is held out'),
  })
  .meta({ id: 'OutcomeDay' });
