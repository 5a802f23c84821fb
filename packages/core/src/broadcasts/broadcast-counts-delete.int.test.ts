import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { emailTemplates } from '@waymark/journeys/templates/registry';
import { deploymentCategories } from '../../../../test/deployment-categories';
import { seedList } from '../../../../test/seed-list';
import { integrationEnv } from '../../../../test/test-env';
import { loadConfig } from '../config/config';
import { createDatabase, type Db } from '../db/database';
import { createEmailDeps } from '../emails/create-email-deps';
import { runBroadcastStep } from './broadcast-run';
import { sendBroadcastTest } from './broadcast-test-send';
import { createBroadcast, deleteBroadcast } from './broadcasts';

/**
 * A deleted broadcast leaves no counter behind (migrations 0135, 0245, 0270, 0295): its
 * broadcast_counts and broadcast_goal_days rows go with it, none left over, none negative.
 */
describe('deleting a broadcast deletes its counters', () => {
  const config = loadConfig(integrationEnv());
  const db: Db = createDatabase({ connectionString: config.databaseUrl, max: 2 });
  const email = createEmailDeps(config, { db, templates: emailTemplates, categories: deploymentCategories });
  const catalog = { db, templates: email.templates, categories: deploymentCategories };
  const run = randomUUID().slice(0, 8);

  afterAll(async () => {
    await db.destroy();
  });

  const countersOf = async (id: string) => ({
    counts: await db.selectFrom('broadcastCounts').select(['bucket', 'n']).where('broadcastId', '=', id).execute(),
    days: await db.selectFrom('broadcastGoalDays').select(['day', 'exposed', 'converted']).where('broadcastId', '=', id).execute(),
  });

  const audience = async (size: number) =>
    seedList(
      db,
      Array.from({ length: size }, (_, i) => ({ email: `counts-${run}-${i}@waymark-test.example` })),
    );

  it('a draft, with the test copies it sent, deleted through deleteBroadcast', async () => {
    const { listKey } = await audience(2);
    const draft = await createBroadcast(catalog, { name: `Draft ${run}`, templateKey: 'welcome', category: 'product-updates', audience: { listKey } }, null);
    const tested = await sendBroadcastTest(email, draft.id, [`counts-${run}-test@waymark-test.example`]);
    expect(tested.map((result) => result.status)).toEqual(['sent']);
    await deleteBroadcast(db, draft.id);
    expect(await countersOf(draft.id)).toEqual({ counts: [], days: [] });
  });

  // Only a draft can be deleted through the api, and a draft has no recipients (the audience is
  // snapshotted when sending starts); but the schema promises the same for any broadcast, and a
  // delete in the database (an operator's, a test's) cascades to recipients that were counted.
  it('a broadcast that sent, with a goal and a holdout, deleted in the database', async () => {
    const { listKey } = await audience(10);
    const broadcast = await createBroadcast(
      catalog,
      {
        name: `Sent ${run}`,
        templateKey: 'welcome',
        category: 'product-updates',
        audience: { listKey },
        goal: { event: 'subscription.started', within: '7 days' },
        holdoutPercent: 20,
      },
      null,
    );
    await db.updateTable('broadcasts').set({ status: 'sending', sendRequestedAt: new Date() }).where('id', '=', broadcast.id).execute();
    const deps = { email, defaultTimeZone: 'UTC' };
    await runBroadcastStep(deps, broadcast.id, new Date()); // the audience snapshot
    await runBroadcastStep(deps, broadcast.id, new Date()); // the chunk
    // a delivery and a conversion, so the sends' and the goal's buckets are counted too
    await db.updateTable('emailSends').set({ deliveredAt: new Date() }).where('broadcastId', '=', broadcast.id).execute();
    await db
      .updateTable('broadcastRecipients')
      .set({ convertedAt: new Date() })
      .where('broadcastId', '=', broadcast.id)
      .where('exposedAt', 'is not', null)
      .execute();
    const before = await countersOf(broadcast.id);
    expect(new Set(before.counts.map((row) => row.bucket))).toEqual(
      new Set(['sent', 'skipped:holdout', 'delivered', 'goal:treatment', 'goal:holdout', 'goal:treatment:converted', 'goal:holdout:converted']),
    );
    expect(before.days).not.toEqual([]);

    // a recipient deleted on its own still takes its buckets out: sent, delivered, its goal arm
    const sum = async (bucket: string) =>
      (await countersOf(broadcast.id)).counts.filter((row) => row.bucket === bucket).reduce((total, row) => total + Number(row.n), 0);
    const counted = async () => Promise.all(['sent', 'delivered', 'goal:treatment', 'goal:treatment:converted'].map(sum));
    const [sent, delivered, treated, converted] = await counted();
    const one = await db
      .selectFrom('broadcastRecipients')
      .select('contactId')
      .where('broadcastId', '=', broadcast.id)
      .where('status', '=', 'sent')
      .executeTakeFirstOrThrow();
    await db.deleteFrom('broadcastRecipients').where('broadcastId', '=', broadcast.id).where('contactId', '=', one.contactId).execute();
    expect(await counted()).toEqual([sent! - 1, delivered! - 1, treated! - 1, converted! - 1]);

    await db.deleteFrom('broadcasts').where('id', '=', broadcast.id).execute();
    expect(await countersOf(broadcast.id)).toEqual({ counts: [], days: [] });
  });
});
