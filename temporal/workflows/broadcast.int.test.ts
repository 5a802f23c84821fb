import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBroadcast, getBroadcast } from '@waymark/core/broadcasts/broadcasts';
import { sendBroadcast } from '@waymark/core/broadcasts/broadcast-transitions';
import { loadConfig } from '@waymark/core/config/config';
import { createDatabase, type Db } from '@waymark/core/db/database';
import { createEmailDeps } from '@waymark/core/emails/create-email-deps';
import type { EmailDeps } from '@waymark/core/emails/email-deps';
import { definePreferenceCategories } from '@waymark/email/preference-categories';
import { categories } from '@waymark/journeys/categories';
import { emailTemplates } from '@waymark/journeys/templates/registry';
import { createRedis } from '@waymark/core/cache/redis';
import { createSendRateGovernor } from '@waymark/core/send-rate/send-rate-governor';
import { emailsTo } from '../../test/email-emulator';
import { eventually } from '../../test/eventually';
import { seedList } from '../../test/seed-list';
import { integrationEnv } from '../../test/test-env';
import { createBroadcastActivities } from '../activities/broadcasts';
import { createTemporalBackgroundJobs } from '../background-jobs';
import { createTimeSkippingEnv, journeyWorkflowBundle } from '../test/time-skipping';

const HOUR = 3_600_000;

/**
 * The broadcast workflow with the real activity, PostgreSQL and SES emulator, on the Java
 * time-skipping server: a wait of hours (a recipient's local 09:00, an A/B test's results) passes
 * in moments, and `env.sleep` moves the clock to just before and after such a moment.
 */
describe('broadcastWorkflow on skipped time', () => {
  const config = loadConfig(integrationEnv());
  let env: TestWorkflowEnvironment;
  let db: Db;
  let email: EmailDeps;
  let worker: Worker;
  let running: Promise<void>;
  const taskQueue = `broadcast-${randomUUID()}`;

  beforeAll(async () => {
    db = createDatabase({ connectionString: config.databaseUrl, max: 6 });
    email = createEmailDeps(config, { db, templates: emailTemplates, categories: definePreferenceCategories(categories) });
    const [testEnv, bundle] = await Promise.all([createTimeSkippingEnv(), journeyWorkflowBundle()]);
    env = testEnv;
    worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: bundle,
      activities: createBroadcastActivities({ email, config: { defaultTimeZone: 'UTC' } }),
    });
    running = worker.run();
  }, 120_000);
  afterAll(async () => {
    worker?.shutdown();
    await running;
    await env?.teardown();
    await db?.destroy();
  });

  const deps = () => ({
    db,
    templates: email.templates,
    categories: definePreferenceCategories(categories),
    jobs: createTemporalBackgroundJobs(env.client, taskQueue),
  });

  function listOf(properties: Record<string, unknown>[]) {
    const run = randomUUID().slice(0, 8);
    return seedList(
      db,
      properties.map((props, i) => ({ email: `bc-${run}-${i}@waymark-test.example`, properties: props })),
    );
  }

  async function sentTo(broadcastId: string): Promise<string[]> {
    const rows = await db.selectFrom('emailSends').select('toEmail').where('broadcastId', '=', broadcastId).where('status', '=', 'sent').execute();
    return rows.map((row) => row.toEmail).sort();
  }

  it('localTime: each time zone gets it at its own 09:00, nothing before', async () => {
    const zones = ['Asia/Tokyo', 'Europe/Paris', 'America/New_York'];
    const { listKey, contacts } = await listOf(zones.map((timezone) => ({ timezone })));
    const broadcast = await createBroadcast(
      deps(),
      { name: 'Local nine', templateKey: 'reengage-we-miss-you', category: 'newsletter', audience: { listKey }, data: {}, localTime: '09:00' },
      null,
    );
    await sendBroadcast(deps(), broadcast.id, new Date(await env.currentTimeMs()));
    const recipients = await eventually(
      () => db.selectFrom('broadcastRecipients').select(['email', 'sendAt']).where('broadcastId', '=', broadcast.id).execute(),
      (rows) => rows.length === 3 && rows.every((row) => row.sendAt !== null),
      { what: 'the snapshot with send times' },
    );
    // each send time is 09:00 on the recipient's wall clock
    for (const [i, zone] of zones.entries()) {
      const at = recipients.find((row) => row.email === contacts[i]!.email)!.sendAt!;
      expect(new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(at)).toBe('09:00');
    }
    expect(await sentTo(broadcast.id)).toEqual([]);

    // walk the clock to a minute before, then a minute after, each zone's 09:00, earliest first
    const order = [...recipients].sort((a, b) => a.sendAt!.getTime() - b.sendAt!.getTime());
    const expected: string[] = [];
    for (const recipient of order) {
      await env.sleep(Math.max(0, recipient.sendAt!.getTime() - 60_000 - (await env.currentTimeMs())));
      expect(await sentTo(broadcast.id)).toEqual([...expected].sort());
      await env.sleep(120_000);
      expected.push(recipient.email!);
      await eventually(
        () => sentTo(broadcast.id),
        (sent) => sent.length === expected.length,
        { what: `the email to ${recipient.email}` },
      );
      expect(await sentTo(broadcast.id)).toEqual([...expected].sort());
    }
    await env.client.workflow.getHandle(`broadcast-${broadcast.id}`).result();
    expect((await getBroadcast(db, broadcast.id)).status).toBe('sent');
  });

  it('A/B: the variant with more human clicks wins and the rest of the audience gets it', async () => {
    const { listKey } = await listOf(Array.from({ length: 20 }, () => ({})));
    const broadcast = await createBroadcast(
      deps(),
      {
        name: 'Subject test',
        templateKey: 'reengage-we-miss-you',
        category: 'newsletter',
        audience: { listKey },
        data: {},
        variants: [
          { id: 'a', subject: 'Subject A' },
          { id: 'b', subject: 'Subject B' },
        ],
        abTest: { testFraction: 0.5, metric: 'human_clicks', waitMinutes: 60 },
      },
      null,
    );
    await sendBroadcast(deps(), broadcast.id, new Date(await env.currentTimeMs()));
    // the test half (5 per variant) is sent, then the run waits an hour for results
    await eventually(
      () => getBroadcast(db, broadcast.id),
      (current) => current.stats.sent === 10 && current.status === 'testing',
      { what: 'the test fraction sent' },
    );
    const tested = await db
      .selectFrom('broadcastRecipients')
      .select(['variantId', 'emailSendId'])
      .where('broadcastId', '=', broadcast.id)
      .where('phase', '=', 'test')
      .execute();
    expect(tested.filter((row) => row.variantId === 'a')).toHaveLength(5);
    // people click: two of b's emails, one of a's (the tracking pipeline sets human_clicked_at on a person's click)
    const clicked = [...tested.filter((row) => row.variantId === 'b').slice(0, 2), ...tested.filter((row) => row.variantId === 'a').slice(0, 1)];
    await db
      .updateTable('emailSends')
      .set({ clickedAt: new Date(), humanClickedAt: new Date() })
      .where(
        'id',
        'in',
        clicked.map((row) => row.emailSendId!),
      )
      .execute();
    await env.sleep(HOUR / 2);
    expect((await getBroadcast(db, broadcast.id)).stats.sent).toBe(10);

    await env.client.workflow.getHandle(`broadcast-${broadcast.id}`).result();
    const done = await getBroadcast(db, broadcast.id);
    expect(done.status).toBe('sent');
    expect(done.winnerVariantId).toBe('b');
    expect(done.variants!.map((variant) => [variant.id, variant.winner, variant.stats.sent, variant.stats.clicks.human])).toEqual([
      ['a', false, 5, 1],
      ['b', true, 15, 2],
    ]);
    const subjects = await db.selectFrom('emailSends').select('subject').where('broadcastId', '=', broadcast.id).execute();
    expect(subjects.filter((row) => row.subject === 'Subject B')).toHaveLength(15);
  });

  it('past the send rate: a send that would wait too long keeps its slot and its recipient stays pending until then; all go, once each', async () => {
    // 2 per second, at most 1.5 s of waiting in the process: of 8 sends, the later ones are deferred
    const sendRate = createSendRateGovernor({
      redis: createRedis(config.cacheUrl, { connectionName: 'waymark-test-broadcast-rate' }),
      maxPerSecond: 2,
      workerShare: undefined,
      readSesMaxSendRate: async () => undefined,
      logger: { info: () => undefined, warn: () => undefined, debug: () => undefined },
      maxWaitMs: 1_500,
      prefix: `test-broadcast-rate:${randomUUID()}`,
    });
    const governedQueue = `broadcast-governed-${randomUUID()}`;
    const governed = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: governedQueue,
      workflowBundle: await journeyWorkflowBundle(),
      activities: createBroadcastActivities({ email: { ...email, sendRate }, config: { defaultTimeZone: 'UTC' } }),
    });
    const running = governed.run();
    try {
      const { listKey, contacts } = await listOf(Array.from({ length: 8 }, () => ({})));
      const governedDeps = { ...deps(), jobs: createTemporalBackgroundJobs(env.client, governedQueue) };
      const broadcast = await createBroadcast(
        governedDeps,
        { name: 'Governed', templateKey: 'reengage-we-miss-you', category: 'newsletter', audience: { listKey }, data: {} },
        null,
      );
      await sendBroadcast(governedDeps, broadcast.id, new Date(await env.currentTimeMs()));
      await env.client.workflow.getHandle(`broadcast-${broadcast.id}`).result();
      const done = await getBroadcast(db, broadcast.id);
      expect(done.status).toBe('sent');
      expect(done.stats.sent).toBe(8);
      expect(done.stats.failed).toBe(0);
      // some waited for their slot as pending recipients (a send time of their own)
      const waited = await db
        .selectFrom('broadcastRecipients')
        .select('sendAt')
        .where('broadcastId', '=', broadcast.id)
        .where('sendAt', 'is not', null)
        .execute();
      expect(waited.length).toBeGreaterThan(0);
      expect(await sentTo(broadcast.id)).toEqual(contacts.map((contact) => contact.email).sort());
      for (const contact of contacts) expect(await emailsTo(contact.email!)).toHaveLength(1);
    } finally {
      governed.shutdown();
      await running;
      await sendRate.close();
    }
  });
});
