import { sql } from 'kysely';
import { beforeEach, describe, expect, it } from 'vitest';
import { defineDeliveryPolicy } from '@waymark/journey';
import { createDatabase, type Db } from '../db/database';
import { useScratchDatabase } from '../../../../test/scratch-database';
import { countReputationEvent } from './reputation-counts';
import { claimWarmup, nextWarmupDay, readWarmup, warmupReport } from './warmup';

const DAY = 86_400_000;
const policy = defineDeliveryPolicy({ warmup: { startPerDay: 50, growth: 1.5, until: 5_000 } });
/** the virtual clock's first day of the ramp, mid-morning UTC */
const start = Date.UTC(2030, 0, 7, 9);

/**
 * The warm-up ramp on a virtual clock against PostgreSQL (docs/email.md, "Warm-up"): each day a
 * backlog far over the allowance asks for sends the way the send paths do (broadcast chunks
 * claiming hundreds, journey sends claiming one), and the day's SES verdicts go into the
 * reputation breaker's counts, from which the next day's allowance is drawn. Its own scratch
 * database: the ramp's days are the installation's.
 */
describe('the warm-up ramp, day by day', () => {
  const scratch = useScratchDatabase();
  let db: Db;
  beforeEach(async () => {
    db = scratch.db();
    await sql`delete from warmup_days; delete from reputation_counts`.execute(db);
  });

  /** One day of asking at `now`: chunks of 400 and single sends, until the day gives nothing more. Answers what it let through. */
  async function drawDay(now: Date): Promise<number> {
    let used = 0;
    for (let asked = 0; asked < 4_000;) {
      const want = asked % 3 === 0 ? 1 : 400;
      const granted = await claimWarmup(db, policy, want, new Date(now.getTime() + asked));
      asked += want;
      used += granted;
      if (granted < want) break;
    }
    return used;
  }

  /** SES's verdicts on a day's sends, as the webhook counts them: every send delivered or bounced, `bounceRate` of them bounced. */
  async function verdicts(now: Date, sent: number, bounceRate: number): Promise<void> {
    const key = { group: 'marketing' as const, provider: 'gmail' };
    const bounces = Math.round(sent * bounceRate);
    const at = new Date(now.getTime() + 3_600_000);
    for (let n = 0; n < bounces; n++) await countReputationEvent(db, key, 'bounced', at);
    await countReputationEvent(db, key, 'delivered', at);
    // the rest of the deliveries added to the same hour's row at once, not one upsert each
    await sql`update reputation_counts set sends = sends + ${sent - bounces - 1}
      where send_group = 'marketing' and provider = 'gmail' and hour = date_trunc('hour', ${at}::timestamptz)`.execute(db);
  }

  async function run(bounceRateOn: (day: number) => number): Promise<number[]> {
    const sent: number[] = [];
    for (let day = 0; day < 10; day++) {
      const now = new Date(start + day * DAY);
      const used = await drawDay(now);
      sent.push(used);
      await verdicts(now, used, bounceRateOn(day));
    }
    return sent;
  }

  it('meets a 10-day plan from 50 a day growing 1.5× within ±2 % each day, through a restart', async () => {
    const sent = await run(() => 0);
    sent.forEach((used, day) => {
      const planned = 50 * 1.5 ** day;
      expect(Math.abs(used - planned) / planned, `day ${day + 1}: ${used} sent, ${planned.toFixed(1)} planned`).toBeLessThanOrEqual(0.02);
    });
    // the count is in PostgreSQL: a restarted worker (a new pool) finds the last day's use, and no more room
    const restarted = createDatabase({ connectionString: scratch.url(), max: 1 });
    try {
      const last = new Date(start + 9 * DAY + 12 * 3_600_000);
      expect((await readWarmup(restarted, policy, last)).today).toEqual({ day: '2030-01-16', allowance: Math.round(50 * 1.5 ** 9), used: sent[9] });
      expect(await claimWarmup(restarted, policy, 1, last)).toBe(0);
      // midnight UTC renews it
      expect(await claimWarmup(restarted, policy, 1, nextWarmupDay(last))).toBe(1);
    } finally {
      await restarted.destroy();
    }
  }, 120_000);

  it('does not grow the day after one with 6 % bounces', async () => {
    const sent = await run((day) => (day === 3 ? 0.06 : 0));
    expect(sent.slice(0, 6)).toEqual([50, 75, 113, 169, 169, 253]);
    const report = await warmupReport(db, policy, new Date(start + 9 * DAY));
    expect(report?.days.slice(0, 5).map((day) => ({ allowance: day.allowance, held: day.held }))).toEqual([
      { allowance: 50, held: false },
      { allowance: 75, held: false },
      { allowance: 113, held: false },
      { allowance: 169, held: true },
      { allowance: 169, held: false },
    ]);
    // today (the tenth day), then the days ahead until the ramp ends at 5 000
    expect(report?.today).toEqual({ day: '2030-01-16', allowance: Math.round(50 * 1.5 ** 8), used: sent[9] });
    expect(report?.days.slice(9).map((day) => day.allowance)).toEqual([1281, 1922, 2883, 4325, null]);
  }, 120_000);
});
