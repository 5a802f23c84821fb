import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineDeliveryPolicy } from '@waymark/journey';
import { loadConfig } from '../config/config';
import { createDatabase, type Db } from '../db/database';
import type { EmailStatus } from '../db/schema';
import { integrationEnv } from '../../../../test/test-env';
import { findCappedContacts, findCappedRecipients } from './frequency-caps';

/** The set-based cap check against real PostgreSQL: what a broadcast chunk asks for its contacts. */
describe('findCappedContacts (one query per chunk)', () => {
  const config = loadConfig(integrationEnv());
  let db: Db;
  beforeAll(() => {
    db = createDatabase({ connectionString: config.databaseUrl, max: 2 });
  });
  afterAll(() => db.destroy());

  const at = new Date('2026-12-01T12:00:00Z');
  const hoursAgo = (hours: number) => new Date(at.getTime() - hours * 3_600_000);
  const policy = defineDeliveryPolicy({
    caps: [
      { category: 'newsletter', max: 2, per: '24h', onCap: 'delay' },
      { category: '*', max: 3, per: '7d', onCap: 'skip' },
    ],
    exempt: ['journey'],
  });

  async function contactWith(sends: [category: string, hours: number, status?: EmailStatus][], email: string | null = `${randomUUID()}@caps.example`) {
    const contact = await db
      .insertInto('contacts')
      .values({ externalId: `caps-${randomUUID()}`, email, properties: '{}' })
      .returning('id')
      .executeTakeFirstOrThrow();
    if (email !== null && sends.length > 0) {
      await db
        .insertInto('emailSends')
        .values(
          sends.map(([category, hours, status]) => ({
            templateKey: 'welcome',
            toEmail: email.toUpperCase(),
            fromEmail: 'tests@waymark.local',
            category,
            status: status ?? 'delivered',
            data: '{}',
            createdAt: hoursAgo(hours),
            updatedAt: hoursAgo(hours),
          })),
        )
        .execute();
    }
    return contact.id;
  }

  it('answers which contacts are capped, by which cap, and when room opens; the rest may be sent to', async () => {
    const full = await contactWith([
      ['newsletter', 20],
      ['newsletter', 5],
    ]);
    const oneLeft = await contactWith([
      ['newsletter', 30],
      ['newsletter', 5],
    ]);
    const failedDoNotCount = await contactWith([
      ['newsletter', 20],
      ['newsletter', 5, 'failed'],
    ]);
    const weekFull = await contactWith([
      ['product-updates', 100],
      ['newsletter', 50],
      ['product-updates', 2],
    ]);
    const exemptDoNotCount = await contactWith([
      ['journey', 1],
      ['journey', 2],
      ['journey', 3],
      ['newsletter', 4],
    ]);
    const noAddress = await contactWith([], null);
    const capped = await findCappedContacts(db, policy, {
      contactIds: [full, oneLeft, failedDoNotCount, weekFull, exemptDoNotCount, noAddress],
      category: 'newsletter',
      at,
    });
    expect([...capped.keys()].sort()).toEqual([full, weekFull].sort());
    expect(capped.get(full)).toEqual({ onCap: 'delay', cap: policy.caps[0], until: hoursAgo(20 - 24) });
    expect(capped.get(weekFull)).toEqual({ onCap: 'skip', cap: policy.caps[1], until: hoursAgo(100 - 168) });
  });

  it('asks nothing for an exempt category, and matches addresses without regard to case', async () => {
    const address = `${randomUUID()}@Caps.example`;
    await contactWith(
      [
        ['newsletter', 1],
        ['newsletter', 2],
      ],
      address,
    );
    expect((await findCappedRecipients(db, policy, { emails: [address.toLowerCase()], category: 'newsletter', at })).size).toBe(1);
    expect((await findCappedRecipients(db, policy, { emails: [address], category: 'journey', at })).size).toBe(0);
  });
});
