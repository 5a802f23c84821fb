import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { definePreferenceCategories } from '@waymark/email/preference-categories';
import { categories } from '@waymark/journeys/categories';
import { emailTemplates } from '@waymark/journeys/templates/registry';
import { loadConfig } from '../config/config';
import { createEmailDeps } from '../emails/create-email-deps';
import type { BackgroundJobs } from '../jobs/background-jobs';
import { emailsTo } from '../../../../test/email-emulator';
import { useScratchDatabase } from '../../../../test/scratch-database';
import { seedList } from '../../../../test/seed-list';
import { integrationEnv } from '../../../../test/test-env';
import { resumeReputationPausedBroadcasts } from './broadcast-reputation';
import { runBroadcastStep } from './broadcast-run';
import { createBroadcast } from './broadcasts';

/** The run's steps played by hand (no workflow): this test only needs the row's transitions. */
const noJobs: BackgroundJobs = {
  start: async () => undefined,
  status: async () => 'not_found',
  progress: async () => null,
  cancel: async () => undefined,
  notify: async () => undefined,
};

/**
 * A broadcast and a paused reputation breaker (docs/email.md, "Reputation breaker"). Its own
 * scratch database: a paused breaker holds marketing mail to every address of its provider.
 */
describe('a broadcast under a paused reputation breaker', () => {
  const scratch = useScratchDatabase();

  it('pauses with reason reputation, sends nothing, and goes on when the breaker resumes', async () => {
    const db = scratch.db();
    const config = loadConfig({ ...integrationEnv(), DATABASE_URL: scratch.url() });
    const preferenceCategories = definePreferenceCategories(categories);
    const email = createEmailDeps(config, { db, templates: emailTemplates, categories: preferenceCategories });
    const run = randomUUID().slice(0, 8);
    const addresses = Array.from({ length: 3 }, (_, i) => `breaker-${run}-${i}@waymark-test.example`);
    const { listKey } = await seedList(
      db,
      addresses.map((address) => ({ email: address })),
    );
    await db.insertInto('reputationBreakers').values({ sendGroup: 'marketing', provider: 'other', state: 'paused', since: new Date() }).execute();
    const broadcast = await createBroadcast(
      { db, templates: email.templates, categories: preferenceCategories },
      { name: `Held ${run}`, templateKey: 'reengage-we-miss-you', category: 'newsletter', audience: { listKey }, data: {} },
      null,
    );
    await db.updateTable('broadcasts').set({ status: 'sending', sendRequestedAt: new Date() }).where('id', '=', broadcast.id).execute();
    const deps = { email, defaultTimeZone: 'UTC' };
    const row = () => db.selectFrom('broadcasts').select(['status', 'pausedReason']).where('id', '=', broadcast.id).executeTakeFirstOrThrow();

    await runBroadcastStep(deps, broadcast.id, new Date()); // the audience snapshot
    await runBroadcastStep(deps, broadcast.id, new Date()); // the chunk: held
    expect(await row()).toEqual({ status: 'paused', pausedReason: 'reputation' });
    expect(await db.selectFrom('emailSends').select('id').where('broadcastId', '=', broadcast.id).execute()).toEqual([]);

    // resuming the broadcast while the breaker is still paused: its next chunk pauses it again
    expect(await resumeReputationPausedBroadcasts({ db, jobs: noJobs })).toEqual([broadcast.id]);
    await runBroadcastStep(deps, broadcast.id, new Date());
    expect(await row()).toEqual({ status: 'paused', pausedReason: 'reputation' });

    await db.updateTable('reputationBreakers').set({ state: 'ok' }).execute();
    expect(await resumeReputationPausedBroadcasts({ db, jobs: noJobs })).toEqual([broadcast.id]);
    expect(await row()).toEqual({ status: 'sending', pausedReason: null });
    for (
      let step = await runBroadcastStep(deps, broadcast.id, new Date());
      step.kind === 'next';
      step = await runBroadcastStep(deps, broadcast.id, new Date())
    );
    expect((await row()).status).toBe('sent');
    for (const address of addresses) expect(await emailsTo(address)).toHaveLength(1);
  }, 60_000);
});
