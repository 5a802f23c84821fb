import { z } from 'zod';
import { breakerSettingsSchema, breakerStateSchema } from './reputation-breaker';
import { warmupSchema } from './warmup';

export const doctorCheckSchema = z
  .object({
    id: z.string().describe('stable: `dns.spf`, `ses.dkim`, `dns.dmarc`, `dns.alignment`, `ses.account.*`, `ses.recommendations`, `sending.*`, `rates.*`'),
    status: z
      .enum(['pass', 'warn', 'fail'])
      .describe('fail: mail is or will be refused, or SES acts on the account; warn: a risk, or a source that could not be read'),
    detail: z.string().describe('what was found, with the numbers'),
    fix: z.string().nullable().describe('what to do about it (null on a pass)'),
  })
  .meta({ id: 'DeliverabilityCheck' });

export const deliverabilitySchema = z
  .object({
    checks: z.array(doctorCheckSchema).describe('the same list `waymark doctor` prints (docs/email.md, "Deliverability")'),
    breaker: z.array(breakerStateSchema).describe('the reputation breaker per group and mailbox provider'),
    breakerSettings: breakerSettingsSchema.describe('the reputation breaker\'s settings in force (docs/email.md, "Reputation breaker")'),
    warmup: warmupSchema.nullable().describe("the delivery policy's warm-up ramp of marketing mail, with today's use (null: the policy sets none)"),
  })
  .meta({ id: 'Deliverability' });
