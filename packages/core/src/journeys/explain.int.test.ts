import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { defineJourney } from '@waymark/journey';
import { definePreferenceCategories } from '@waymark/email/preference-categories';
import { integrationEnv } from '../../../../test/test-env';
import { addressHash } from '../contacts/address-suppressions';
import { loadConfig } from '../config/config';
import { createDatabase, type Db } from '../db/database';
import type { AddressSuppressionReason } from '../contacts/address-suppressions';
import { explainJourney } from './explain';
import { createJourneyRegistry } from './registry';

/**
 * A trigger that made no entry, for a contact whose address has a kept suppression (docs/email.md,
 * "Suppression outlives the contact"): explain names the kept entry only when the entry gate would
 * have refused on it, kept before the trigger and, for an unsubscribe, in a category a person may leave.
 */
describe('explain: a kept suppression as the reason a trigger made no entry', () => {
  const config = loadConfig(integrationEnv());
  const db: Db = createDatabase({ connectionString: config.databaseUrl, max: 2 });
  afterAll(() => db.destroy());

  const journey = (category: string) =>
    defineJourney({
      id: `explain-${category}`,
      name: category,
      description: '',
      trigger: { event: 'explain.triggered' },
      category,
      run: async () => undefined,
    });
  const journeys = createJourneyRegistry([journey('receipts'), journey('newsletter')], { enabledJourneys: '*' });
  // receipts are required: a person who unsubscribed from all still gets them
  const categories = definePreferenceCategories([
    { key: 'journey', label: 'Journey', description: '' },
    { key: 'receipts', label: 'Receipts', description: '', required: true },
    { key: 'newsletter', label: 'Newsletter', description: '' },
  ]);

  /** A contact with one trigger at `triggeredAt` and a kept entry of its address at `keptAt`; its trigger outcomes in a journey. */
  async function outcomes(reason: AddressSuppressionReason, times: { triggeredAt: Date; keptAt: Date }, category: string): Promise<string[]> {
    const userId = `explain-${randomUUID()}`;
    const email = `${userId}@waymark-test.example`;
    const contact = await db.insertInto('contacts').values({ externalId: userId, email, properties: '{}' }).returning('id').executeTakeFirstOrThrow();
    await db
      .insertInto('events')
      .values({
        userId,
        userEmail: email,
        event: 'explain.triggered',
        properties: '{}',
        idempotencyKey: null,
        occurredAt: times.triggeredAt,
        createdAt: times.triggeredAt,
      })
      .execute();
    await sql`insert into address_suppressions (address_hash, reason, suppressed_at) values (${addressHash(sql.val(email))}, ${reason}, ${times.keptAt})`.execute(
      db,
    );
    const explanation = await explainJourney({ db, journeys, orchestrator: {}, categories }, { contactId: contact.id, journeyId: `explain-${category}` });
    return explanation.triggers.map((trigger) => trigger.outcome);
  }

  const day = 86_400_000;
  const earlier = { triggeredAt: new Date(Date.now() - day), keptAt: new Date(Date.now() - 2 * day) };
  const later = { triggeredAt: new Date(Date.now() - 2 * day), keptAt: new Date(Date.now() - day) };
  const notEntered = 'not entered (already enrolled, or unsubscribed at the time)';

  it('names a suppression kept before the trigger, in any category', async () => {
    expect(await outcomes('bounced', earlier, 'receipts')).toEqual([expect.stringMatching(/^not entered: the address is suppressed \(it bounced on /)]);
  });

  it('does not name a suppression kept after the trigger', async () => {
    expect(await outcomes('bounced', later, 'newsletter')).toEqual([notEntered]);
  });

  it('names a kept unsubscribe for a category a person may leave, never for a required one', async () => {
    expect(await outcomes('unsubscribed', earlier, 'newsletter')).toEqual([expect.stringMatching(/^not entered: the address is unsubscribed \(/)]);
    expect(await outcomes('unsubscribed', earlier, 'receipts')).toEqual([notEntered]);
  });
});
