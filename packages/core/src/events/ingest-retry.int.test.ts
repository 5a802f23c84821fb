import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { emailTemplates } from '@waymark/journeys/templates/registry';
import { deploymentCategories } from '../../../../test/deployment-categories';
import { seedList } from '../../../../test/seed-list';
import { integrationEnv } from '../../../../test/test-env';
import { runBroadcastStep } from '../broadcasts/broadcast-run';
import { createBroadcast } from '../broadcasts/broadcasts';
import { loadConfig } from '../config/config';
import { createDatabase, type Db } from '../db/database';
import { createEmailDeps } from '../emails/create-email-deps';
import { createJourneyRegistry } from '../journeys/registry';
import { createLogger } from '../logging/logger';
import type { EffectDispatcher } from './effect-dispatcher';
import { ingestEvent } from './ingest';
import type { IngestDeps } from './ingest-deps';

/**
 * A request that died after its event's commit, before what follows the commit (the process is
 * gone: here the fault hook throws there), and the producer's retry under the same Idempotency-Key:
 * the retry does what the first attempt did not. The journey effects' part is
 * apps/api/src/event-effects-crash.int.test.ts (a real process killed); this is a goal broadcast's
 * conversion, written after the commit.
 */
describe('a retried event finishes what its first request began', () => {
  const config = loadConfig(integrationEnv());
  const db: Db = createDatabase({ connectionString: config.databaseUrl, max: 2 });
  const email = createEmailDeps(config, { db, templates: emailTemplates, categories: deploymentCategories });
  const effects: EffectDispatcher = { dispatch: () => undefined, finish: async () => undefined, close: async () => undefined };
  const deps: IngestDeps = {
    db,
    logger: createLogger({ level: 'error', name: 'ingest-retry-test', format: 'json' }),
    journeys: createJourneyRegistry([], { enabledJourneys: '*' }),
    effects,
    catalogMode: 'quarantine',
  };
  const dying: IngestDeps = {
    ...deps,
    faults: {
      afterCommit: async () => {
        throw new Error('the process died after the commit');
      },
    },
  };
  afterAll(() => db.destroy());

  it('the goal event of an exposed broadcast recipient converts them on the retry', async () => {
    const run = randomUUID().slice(0, 8);
    const address = `retry-goal-${run}@waymark-test.example`;
    const { listKey } = await seedList(db, [{ email: address }]);
    const broadcast = await createBroadcast(
      { db, templates: email.templates, categories: deploymentCategories },
      {
        name: `Goal ${run}`,
        templateKey: 'welcome',
        category: 'product-updates',
        audience: { listKey },
        goal: { event: 'subscription.started', within: '7 days' },
      },
      null,
    );
    await db.updateTable('broadcasts').set({ status: 'sending', sendRequestedAt: new Date() }).where('id', '=', broadcast.id).execute();
    const steps = { email, defaultTimeZone: 'UTC' };
    await runBroadcastStep(steps, broadcast.id, new Date()); // the audience snapshot
    await runBroadcastStep(steps, broadcast.id, new Date()); // the chunk: the recipient is exposed
    const recipient = () =>
      db.selectFrom('broadcastRecipients').select(['exposedAt', 'conversionEventId']).where('broadcastId', '=', broadcast.id).executeTakeFirstOrThrow();
    expect((await recipient()).exposedAt).not.toBeNull();

    // the seeded contact's external id (seedList): the recipient is keyed by it
    const goal = { name: 'subscription.started', userId: `${listKey}-0`, email: address, idempotencyKey: `retry-goal-${run}`, source: 'api' as const };
    await expect(ingestEvent(dying, goal)).rejects.toThrow('the process died after the commit');
    const stored = await db.selectFrom('events').select('id').where('idempotencyKey', '=', goal.idempotencyKey).executeTakeFirstOrThrow();
    expect((await recipient()).conversionEventId).toBeNull();

    expect(await ingestEvent(deps, goal)).toEqual({ stored: false, eventId: stored.id, exits: [] });
    expect((await recipient()).conversionEventId).toBe(stored.id);
  });
});
