import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/config';
import { createDatabase, type Db } from '../db/database';
import { integrationEnv } from '../../../../test/test-env';
import { deploymentCategories } from '../../../../test/deployment-categories';
import { enterJourney, type EnterJourneyInput } from './run-steps';

/** The entry guard asks the journey's own preference category (docs/email.md, "Preference categories"). */
describe('enterJourney and the journey category', () => {
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
});
