import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_REPUTATION_THRESHOLDS } from '@waymark/journey';
import { createDatabase, type Db } from '../db/database';
import { openScratchDatabase } from '../../../../test/scratch-database';
import { breakerReport, evaluateBreakers, resumeBreakers, type BreakerDeps, type BreakerTransition } from './breaker';
import { countReputationEvent } from './reputation-counts';

const HOUR = 3_600_000;
const t0 = new Date(Date.UTC(2026, 5, 1, 12));
const at = (hours: number) => new Date(t0.getTime() + hours * HOUR);

/**
 * The breaker's states over time, on its own clock (`now` is passed in), in a scratch database:
 * the counts are the ones the webhook keeps, written here directly.
 */
describe('the reputation breaker over time', () => {
  let scratch: { url: string; release: () => Promise<void> };
  let db: Db;
  const alerts: BreakerTransition[] = [];
  let deps: BreakerDeps;
  beforeAll(async () => {
    scratch = await openScratchDatabase();
    db = createDatabase({ connectionString: scratch.url, max: 2 });
    deps = {
      db,
      settings: { thresholds: DEFAULT_REPUTATION_THRESHOLDS, windowHours: 24, minSends: 100, cooldownMs: 6 * HOUR },
      onTransition: async (transition) => void alerts.push(transition),
    };
  }, 60_000);
  afterAll(async () => {
    await db?.destroy();
    await scratch?.release();
  });

  const gmail = { group: 'marketing', provider: 'gmail' } as const;
  const states = async (now: Date) => (await breakerReport(deps, now)).map((row) => `${row.group}/${row.provider} ${row.state}`);

  it('trips on 9 % bounces, resumes itself after the cooldown once the window is clean, and by hand without re-tripping on the same counts', async () => {
    for (let i = 0; i < 200; i++) await countReputationEvent(db, gmail, i < 18 ? 'bounced' : 'delivered', at(0));
    expect((await evaluateBreakers(deps, at(0))).map((change) => `${change.from}→${change.to}`)).toEqual(['ok→paused']);
    expect(await states(at(0))).toEqual(['marketing/gmail paused']);
    expect(await evaluateBreakers(deps, at(1))).toEqual([]);

    // the bad hour leaves the 24 h window: the cooldown starts, and ends 6 h later
    expect(await evaluateBreakers(deps, at(24))).toEqual([]);
    expect(await evaluateBreakers(deps, at(29.5))).toEqual([]);
    expect((await evaluateBreakers(deps, at(30))).map((change) => [change.to, change.cause])).toEqual([['ok', 'cooldown']]);
    const audit = await db.selectFrom('auditLogs').select(['action', 'resourceId']).where('resource', '=', 'deliverability').orderBy('createdAt').execute();
    expect(audit).toEqual([
      { action: 'pause', resourceId: 'marketing/gmail' },
      { action: 'resume', resourceId: 'marketing/gmail' },
    ]);

    // complaints (1 %) trip it again; a manual resume sets the window's counts aside
    for (let i = 0; i < 200; i++) await countReputationEvent(db, gmail, 'delivered', at(40));
    for (let i = 0; i < 2; i++) await countReputationEvent(db, gmail, 'complained', at(40));
    expect((await evaluateBreakers(deps, at(40))).map((change) => change.to)).toEqual(['paused']);
    expect((await resumeBreakers(deps, at(41), gmail)).map((change) => [change.to, change.cause])).toEqual([['ok', 'manual']]);
    await countReputationEvent(db, gmail, 'delivered', at(41));
    expect(await evaluateBreakers(deps, at(41))).toEqual([]);
    expect(await states(at(41))).toEqual(['marketing/gmail ok']);
    expect(alerts.map((change) => `${change.from}→${change.to}`)).toEqual(['ok→paused', 'paused→ok', 'ok→paused', 'paused→ok']);
  }, 60_000);
});
