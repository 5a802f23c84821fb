import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBroadcastStep } from '@waymark/core/broadcasts/broadcast-run';
import { cancelBroadcast } from '@waymark/core/broadcasts/broadcast-transitions';
import { createBroadcast } from '@waymark/core/broadcasts/broadcasts';
import { createRedis } from '@waymark/core/cache/redis';
import { loadConfig } from '@waymark/core/config/config';
import { createDatabase, type Db } from '@waymark/core/db/database';
import { createEmailDeps } from '@waymark/core/emails/create-email-deps';
import { listEmailSends } from '@waymark/core/emails/email-admin';
import { sendEmail } from '@waymark/core/emails/send-email';
import type { BackgroundJobs } from '@waymark/core/jobs/background-jobs';
import { createSendRateGovernor } from '@waymark/core/send-rate/send-rate-governor';
import { definePreferenceCategories } from '@waymark/email/preference-categories';
import { categories } from '@waymark/journeys/categories';
import { emailTemplates } from '@waymark/journeys/templates/registry';
import { emailsTo } from '../../test/email-emulator';
import { seedList } from '../../test/seed-list';
import { integrationEnv } from '../../test/test-env';

/** The run's steps played by hand (no workflow): this test only needs the row's transitions. */
const noJobs: BackgroundJobs = {
  start: async () => undefined,
  status: async () => 'not_found',
  progress: async () => null,
  cancel: async () => undefined,
  notify: async () => undefined,
};

describe('a cancelled broadcast and the sends the send rate held back', () => {
  const config = loadConfig(integrationEnv());
  let db: Db;
  const sendRate = createSendRateGovernor({
    redis: createRedis(config.cacheUrl, { connectionName: 'waymark-test-cancel-held' }),
    maxPerSecond: 1,
    workerShare: undefined,
    readSesMaxSendRate: async () => undefined,
    logger: { info: () => undefined, warn: () => undefined, debug: () => undefined },
    // no waiting in the process: past the first send, each is held (queued, its recipient pending)
    maxWaitMs: 1,
    prefix: `test-cancel-held:${randomUUID()}`,
  });
  beforeAll(() => {
    db = createDatabase({ connectionString: config.databaseUrl, max: 4 });
  });
  afterAll(async () => {
    await sendRate.close();
    await db?.destroy();
  });

  it('end cancelled: never sent afterwards, listed and filtered by that status, and counted', async () => {
    const preferenceCategories = definePreferenceCategories(categories);
    const email = { ...createEmailDeps(config, { db, templates: emailTemplates, categories: preferenceCategories }), sendRate };
    const run = randomUUID().slice(0, 8);
    const { listKey } = await seedList(
      db,
      Array.from({ length: 6 }, (_, i) => ({ email: `held-${run}-${i}@waymark-test.example` })),
    );
    const broadcast = await createBroadcast(
      { db, templates: email.templates, categories: preferenceCategories },
      { name: `Held ${run}`, templateKey: 'reengage-we-miss-you', category: 'newsletter', audience: { listKey }, data: {} },
      null,
    );
    await db.updateTable('broadcasts').set({ status: 'sending', sendRequestedAt: new Date() }).where('id', '=', broadcast.id).execute();
    const deps = { email, defaultTimeZone: 'UTC' };
    await runBroadcastStep(deps, broadcast.id, new Date()); // the audience snapshot
    await runBroadcastStep(deps, broadcast.id, new Date()); // the chunk: the send rate holds most back
    const sends = () => db.selectFrom('emailSends').select(['id', 'toEmail', 'status', 'idempotencyKey']).where('broadcastId', '=', broadcast.id).execute();
    const held = (await sends()).filter((send) => send.status === 'queued');
    expect(held.length).toBeGreaterThan(0);

    await cancelBroadcast({ db, jobs: noJobs }, broadcast.id);
    const after = await sends();
    expect(after.filter((send) => send.status === 'queued')).toEqual([]);
    expect(
      after
        .filter((send) => send.status === 'cancelled')
        .map((send) => send.id)
        .sort(),
    ).toEqual(held.map((send) => send.id).sort());

    // a late retry of a held send (its key) sends nothing
    const retried = await sendEmail(email, { templateKey: 'reengage-we-miss-you', to: held[0]!.toEmail, idempotencyKey: held[0]!.idempotencyKey! });
    expect(retried).toEqual({ status: 'skipped', reason: 'cancelled' });
    expect(await emailsTo(held[0]!.toEmail)).toEqual([]);

    // listed and filtered by status, and the filter's total is the counted one (filter_counts)
    for (const send of held) {
      const listed = await listEmailSends(db, { limit: 10, offset: 0, toEmail: send.toEmail, status: 'cancelled' });
      expect(listed.emails.map((row) => row.id)).toEqual([send.id]);
    }
    const counted = await listEmailSends(db, { limit: 1, offset: 0, status: 'cancelled' });
    const actual = await sql<{ n: number }>`select count(*)::int as n from email_sends where status = 'cancelled'`.execute(db);
    expect(counted.total).toBe(actual.rows[0]!.n);
    const queued = await listEmailSends(db, { limit: 1, offset: 0, status: 'queued' });
    const actualQueued = await sql<{ n: number }>`select count(*)::int as n from email_sends where status = 'queued'`.execute(db);
    expect(queued.total).toBe(actualQueued.rows[0]!.n);
  });
});
