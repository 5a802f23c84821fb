import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBroadcastStep } from '@waymark/core/broadcasts/broadcast-run';
import { createBroadcast, getBroadcast } from '@waymark/core/broadcasts/broadcasts';
import { loadConfig } from '@waymark/core/config/config';
import { createDatabase, type Db } from '@waymark/core/db/database';
import { createEmailDeps } from '@waymark/core/emails/create-email-deps';
import { definePreferenceCategories } from '@waymark/email/preference-categories';
import { categories } from '@waymark/journeys/categories';
import { emailTemplates } from '@waymark/journeys/templates/registry';
import { eventually } from '../../test/eventually';
import { seedList } from '../../test/seed-list';
import { integrationEnv } from '../../test/test-env';

/**
 * A pause that lands between a step's read of the row and its last chunk: the step must not end
 * the run, or the resumed broadcast reads `sending` with nothing left to finish it.
 */
describe('runBroadcastStep and a pause at the end of the list', () => {
  const config = loadConfig(integrationEnv());
  let db: Db;
  let blocker: pg.Client;
  beforeAll(async () => {
    db = createDatabase({ connectionString: config.databaseUrl, max: 4 });
    blocker = new pg.Client({ connectionString: config.databaseUrl });
    await blocker.connect();
  });
  afterAll(async () => {
    await blocker?.end();
    await db?.destroy();
  });

  it('a pause committed while the last step waits on the row keeps the run, and the resume sends it to sent', async () => {
    const preferenceCategories = definePreferenceCategories(categories);
    const email = createEmailDeps(config, { db, templates: emailTemplates, categories: preferenceCategories });
    const deps = { email, defaultTimeZone: 'UTC' };
    const run = randomUUID().slice(0, 8);
    const { listKey } = await seedList(db, [{ email: `pause-end-${run}@waymark-test.example` }]);
    const broadcast = await createBroadcast(
      { db, templates: email.templates, categories: preferenceCategories },
      { name: `Pause at the end ${run}`, templateKey: 'reengage-we-miss-you', category: 'newsletter', audience: { listKey }, data: {} },
      null,
    );
    // as `send` leaves it, without a workflow: this test plays the workflow's steps itself
    await db.updateTable('broadcasts').set({ status: 'sending', sendRequestedAt: new Date() }).where('id', '=', broadcast.id).execute();
    expect(await runBroadcastStep(deps, broadcast.id, new Date())).toEqual({ kind: 'next' }); // the audience snapshot
    expect(await runBroadcastStep(deps, broadcast.id, new Date())).toEqual({ kind: 'next' }); // the one send

    // the pause's UPDATE holds the row while the last step reads `sending` and waits on the row's lock
    await blocker.query('begin');
    await blocker.query(`update broadcasts set status = 'paused', paused_from = status where id = $1`, [broadcast.id]);
    const last = runBroadcastStep(deps, broadcast.id, new Date());
    await eventually(
      async () => (await blocker.query<{ n: number }>(`select count(*)::int as n from pg_locks where not granted`)).rows[0]!.n,
      (n) => n >= 1,
      { timeoutMs: 20_000, intervalMs: 20, what: 'the step to wait on the paused row' },
    );
    await blocker.query('commit');
    expect(await last).toEqual({ kind: 'next' });
    expect((await getBroadcast(db, broadcast.id)).status).toBe('paused');
    expect(await runBroadcastStep(deps, broadcast.id, new Date())).toMatchObject({ kind: 'wait' });

    await sql`update broadcasts set status = paused_from, paused_from = null where id = ${broadcast.id}`.execute(db);
    expect(await runBroadcastStep(deps, broadcast.id, new Date())).toEqual({ kind: 'done' });
    expect((await getBroadcast(db, broadcast.id)).status).toBe('sent');
  });
});
