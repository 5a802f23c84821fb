import { z } from 'zod';

const allowance = z.number().int().nullable();

/** The warm-up ramp as GET /v1/admin/deliverability answers it (docs/email.md, "Warm-up"). */
export const warmupSchema = z
  .object({
    startPerDay: z.number().int().describe("the ramp's first day: marketing sends allowed"),
    growth: z.number().describe("each day's allowance is the previous one's times this, unless that day's rates crossed the slow thresholds"),
    until: z.number().int().describe('the ramp ends once a day would allow this many'),
    complete: z.boolean().describe('the ramp is over: marketing mail is no longer capped by it'),
    today: z
      .object({
        day: z.iso.date().describe('the UTC day'),
        allowance: allowance.describe("today's marketing sends allowed (null: no cap, the ramp is over)"),
        used: z.number().int().describe('marketing sends let through today so far'),
      })
      .describe('today as the send paths count it'),
    days: z
      .array(
        z.object({
          day: z.iso.date().describe('the UTC day'),
          allowance: allowance.describe('marketing sends allowed that day (null: the ramp is over)'),
          used: z.number().int().describe('marketing sends let through that day (0 ahead of today)'),
          held: z.boolean().describe("that day's bounce or complaint rate crossed a slow threshold, so the next day did not grow"),
        }),
      )
      .describe('the days of the ramp so far, oldest first, then today and the days ahead until it ends, as if each stays under the slow thresholds'),
  })
  .meta({ id: 'Warmup' });
