import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/config';
import { createDatabase, type Db } from '../db/database';
import { integrationEnv } from '../../../../test/test-env';
import { deploymentCategories } from '../../../../test/deployment-categories';
import { enterJourney, type EnterJourneyInput } from './run-steps';

/**
 * The entry guard asks the journey's own preference category (docs/email.md, "Preference
 * categories"), for the event's address or else the contact's.
 */
describe('enterJourney: the address and the send gate', () => {
  const config = loadConfig(integrationEnv());
  let db: Db;
  beforeAll(() => {
    db = createDatabase({ connectionString: config.databaseUrl, max: 2 });
  });
  afterAll(() => db.destroy());

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
