import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { defineDeliveryPolicy } from '@waymark/journey';
import { emailTemplates } from '@waymark/journeys/templates/registry';
import { loadConfig } from '../config/config';
import { warmupDayOf } from '../deliverability/warmup';
import { createEmailDeps } from '../emails/create-email-deps';
import { deploymentCategories } from '../../../../test/deployment-categories';
import { useScratchDatabase } from '../../../../test/scratch-database';
import { seedList } from '../../../../test/seed-list';
import { integrationEnv } from '../../../../test/test-env';
import { runBroadcastStep } from './broadcast-run';
import { createBroadcast } from './broadcasts';

/**
 * A broadcast under the warm-up ramp (docs/email.md, "Warm-up"). Its own scratch database: the
 * ramp's days are the installation's, which other tests' sends would claim from.
 */
describe('a broadcast under the warm-up ramp', () => {
  const scratch = useScratchDatabase();

  it('claims the allowance only for the recipients it sends to, not those skipped for missing data', async () => {
    const db = scratch.db();
    const config = loadConfig({ ...integrationEnv(), DATABASE_URL: scratch.url() });
    const policy = defineDeliveryPolicy({ warmup: { startPerDay: 10, growth: 2, until: 1_000 } });
    const email = createEmailDeps(config, { db, templates: emailTemplates, categories: deploymentCategories, deliveryPolicy: policy });
    const run = randomUUID().slice(0, 8);
    // order-receipt needs orderId: one recipient has it, two do not
    const { listKey } = await seedList(db, [
      { email: `warmup-${run}-0@waymark-test.example`, properties: { orderId: 'A-1042' } },
      { email: `warmup-${run}-1@waymark-test.example` },
      { email: `warmup-${run}-2@waymark-test.example` },
    ]);
    const broadcast = await createBroadcast(
      { db, templates: email.templates, categories: deploymentCategories },
      {
        name: `Ramped ${run}`,
        templateKey: 'order-receipt',
        category: 'newsletter',
        audience: { listKey },
        data: { items: [{ name: 'Seat', quantity: 1, price: 5 }] },
      },
      null,
    );
    await db.updateTable('broadcasts').set({ status: 'sending', sendRequestedAt: new Date() }).where('id', '=', broadcast.id).execute();
    const deps = { email, defaultTimeZone: 'UTC' };
    const now = new Date();
    await runBroadcastStep(deps, broadcast.id, now); // the audience snapshot
    await runBroadcastStep(deps, broadcast.id, now); // the chunk

    const recipients = await db.selectFrom('broadcastRecipients').select(['status', 'reason']).where('broadcastId', '=', broadcast.id).execute();
    expect(recipients.map((recipient) => `${recipient.status}:${recipient.reason ?? ''}`).sort()).toEqual([
      'sent:',
      'skipped:missing_data',
      'skipped:missing_data',
    ]);
    // one send went: one of the day's allowance is used, none by the two that could not be sent
    const day = await sql<{ used: number }>`select used from warmup_days where day = ${warmupDayOf(now)}::date`.execute(db);
    expect(day.rows[0]?.used).toBe(1);
  }, 60_000);
});
