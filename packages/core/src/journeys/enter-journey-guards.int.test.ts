import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/config';
import { createDatabase, type Db } from '../db/database';
import { integrationEnv } from '../../../../test/test-env';
import { deploymentCategories } from '../../../../test/deployment-categories';
import { enterJourney, type EnterJourneyInput } from './run-steps';

/** The entry's guards against real PostgreSQL (the overlapping-retry case: enter-journey.int.test.ts). */
describe('enterJourney guards', () => {
  const config = loadConfig(integrationEnv());
  let db: Db;
  beforeAll(() => {
    db = createDatabase({ connectionString: config.databaseUrl, max: 2 });
  });
  afterAll(() => db.destroy());

  /**
   * The entry limit and "already enrolled" guards, and what a refused entry leaves behind: nothing
   * (the entry's ledger, state and log writes are one statement).
   */
  describe('entry limits', () => {
    const person = (entryLimit: EnterJourneyInput['entryLimit']) => {
      const journeyId = `limits-${randomUUID().slice(0, 8)}`;
      const userId = `limits-${randomUUID().slice(0, 8)}`;
      return (): EnterJourneyInput => ({
        journeyId,
        userId,
        userEmail: `${userId}@example.com`,
        workflowId: `journey:${journeyId}:${randomUUID()}`,
        runId: randomUUID(),
        entryLimit,
        context: { trigger: { event: 'user.signed_up' } },
      });
    };
    const ledger = (input: EnterJourneyInput) =>
      db.selectFrom('journeyEntries').select('entryCount').where('journeyId', '=', input.journeyId).where('userId', '=', input.userId).executeTakeFirst();
    const states = (input: EnterJourneyInput) =>
      db
        .selectFrom('journeyStates')
        .select(['id', 'status', 'entryCount'])
        .where('journeyId', '=', input.journeyId)
        .where('userId', '=', input.userId)
        .execute();
    const end = (stateId: string) => db.updateTable('journeyStates').set({ status: 'completed' }).where('id', '=', stateId).execute();

    it('writes the state, its entered log and the ledger row together', async () => {
      const input = person('once')();
      const entered = await enterJourney(db, input, deploymentCategories);
      if (!entered.entered) throw new Error(`not entered: ${entered.reason}`);
      expect(await states(input)).toEqual([{ id: entered.stateId, status: 'active', entryCount: 1 }]);
      const logs = await db.selectFrom('journeyLogs').select(['action', 'toNodeId', 'detail']).where('journeyStateId', '=', entered.stateId).execute();
      expect(logs).toEqual([{ action: 'entered', toNodeId: 'start', detail: { trigger: { event: 'user.signed_up' } } }]);
      expect(await ledger(input)).toEqual({ entryCount: 1 });
    });

    it('once: a second run is refused as entry_limit while the first is live and after it ended', async () => {
      const next = person('once');
      const first = await enterJourney(db, next(), deploymentCategories);
      if (!first.entered) throw new Error('not entered');
      expect(await enterJourney(db, next(), deploymentCategories)).toEqual({ entered: false, reason: 'entry_limit' });
      await end(first.stateId);
      const again = next();
      expect(await enterJourney(db, again, deploymentCategories)).toEqual({ entered: false, reason: 'entry_limit' });
      expect(await states(again)).toHaveLength(1);
      expect(await ledger(again)).toEqual({ entryCount: 1 });
    });

    it('unlimited: refused as already_enrolled while live, without counting; entered again once the run ended', async () => {
      const next = person('unlimited');
      const first = await enterJourney(db, next(), deploymentCategories);
      if (!first.entered) throw new Error('not entered');
      const refused = next();
      expect(await enterJourney(db, refused, deploymentCategories)).toEqual({ entered: false, reason: 'already_enrolled' });
      expect(await ledger(refused)).toEqual({ entryCount: 1 });
      await end(first.stateId);
      const second = await enterJourney(db, next(), deploymentCategories);
      expect(second).toMatchObject({ entered: true });
      expect((await states(refused)).map((state) => [state.status, state.entryCount]).sort()).toEqual([
        ['active', 2],
        ['completed', 1],
      ]);
      expect(await ledger(refused)).toEqual({ entryCount: 2 });
    });

    it('a retried entry of the same run finds its own state', async () => {
      const input = person('once')();
      const first = await enterJourney(db, input, deploymentCategories);
      expect(await enterJourney(db, input, deploymentCategories)).toEqual(first);
    });
  });

  /**
   * The send gate asks the journey's own preference category (docs/email.md, "Preference
   * categories"), for the event's address or else the contact's.
   */
  describe('the address and the send gate', () => {
    const input = (email: string, category?: string): EnterJourneyInput => ({
      journeyId: `digest-${randomUUID().slice(0, 8)}`,
      userId: `digest-${randomUUID().slice(0, 8)}`,
      userEmail: email,
      workflowId: `journey:digest:${randomUUID()}`,
      runId: randomUUID(),
      entryLimit: 'unlimited',
      ...(category === undefined ? {} : { category }),
      context: {},
    });

    it('refuses someone who left the category, and lets them into a journey of another', async () => {
      const email = `newsletter-off-${randomUUID()}@example.com`;
      await db
        .insertInto('emailPreferences')
        .values({ email, userId: null, categories: JSON.stringify({ newsletter: false }) })
        .execute();
      expect(await enterJourney(db, input(email, 'newsletter'), deploymentCategories)).toEqual({ entered: false, reason: 'category_unsubscribed' });
      expect(await enterJourney(db, input(email), deploymentCategories)).toMatchObject({ entered: true });
      expect(await enterJourney(db, input(email, 'product-updates'), deploymentCategories)).toMatchObject({ entered: true });
    });

    it('an event without an address enters with the contact’s, gated by that address; without either it is no_email', async () => {
      const entry = input('   ');
      const email = `Contact-${randomUUID()}@Example.com`;
      await db.insertInto('contacts').values({ externalId: entry.userId, email, properties: '{}' }).execute();
      expect(await enterJourney(db, entry, deploymentCategories)).toMatchObject({ entered: true, userEmail: email });

      const suppressed = input('');
      const other = `suppressed-${randomUUID()}@example.com`;
      await db.insertInto('contacts').values({ externalId: suppressed.userId, email: other, properties: '{}' }).execute();
      // preferences are kept per address and compare case-insensitively
      await db.insertInto('emailPreferences').values({ email: other.toUpperCase(), userId: null, suppressed: true }).execute();
      expect(await enterJourney(db, suppressed, deploymentCategories)).toEqual({ entered: false, reason: 'suppressed' });

      const nobody = input('');
      expect(await enterJourney(db, nobody, deploymentCategories)).toEqual({ entered: false, reason: 'no_email' });
      const written = await db.selectFrom('journeyStates').select('id').where('workflowId', 'in', [suppressed.workflowId, nobody.workflowId]).execute();
      expect(written).toEqual([]);
    });

    it('a retried entry finds its own state, whatever the address’s preferences say since', async () => {
      const email = `retry-${randomUUID()}@example.com`;
      const entry = input(email);
      const first = await enterJourney(db, entry, deploymentCategories);
      if (!first.entered) throw new Error(`not entered: ${first.reason}`);
      await db.insertInto('emailPreferences').values({ email, userId: null, unsubscribedAll: true }).execute();
      expect(await enterJourney(db, entry, deploymentCategories)).toEqual(first);
      expect(await enterJourney(db, input(email), deploymentCategories)).toEqual({ entered: false, reason: 'unsubscribed_all' });
    });
  });
});
