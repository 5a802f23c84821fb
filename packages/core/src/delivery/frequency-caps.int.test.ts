import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineDeliveryPolicy } from '@waymark/journey';
import { loadConfig } from '../config/config';
import { createDatabase, type Db } from '../db/database';
import type { EmailStatus } from '../db/schema';
import { integrationEnv } from '../../../../test/test-env';
import { claimCapRoom, releaseCapClaims } from './frequency-caps';

/** The set-based cap checks against real PostgreSQL: what a broadcast chunk and a journey step ask. */
describe('frequency caps on PostgreSQL (claimCapRoom)', () => {
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

  async function contactWith(sends: [category: string, hours: number, status?: EmailStatus][], email: string = `${randomUUID()}@caps.example`) {
    const contact = await db
      .insertInto('contacts')
      .values({ externalId: `caps-${randomUUID()}`, email, properties: '{}' })
      .returning('id')
      .executeTakeFirstOrThrow();
    if (sends.length > 0) {
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
    return { id: contact.id, email };
  }

  /** What a broadcast chunk or a journey step asks: one send per contact, each claimed or capped. */
  async function capped(contacts: readonly { id: string; email: string }[], category: string) {
    const sends = contacts.map((contact) => ({ idempotencyKey: `${contact.id}:${randomUUID()}`, email: contact.email }));
    const answer = await claimCapRoom(db, policy, { sends, category, at });
    await releaseCapClaims(
      db,
      sends.map((send) => send.idempotencyKey),
    );
    return new Map(
      contacts.flatMap((contact, index) => {
        const verdict = answer.get(sends[index]!.idempotencyKey);
        return verdict === undefined ? [] : [[contact.id, verdict] as const];
      }),
    );
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
    const fresh = await contactWith([]);
    const verdicts = await capped([full, oneLeft, failedDoNotCount, weekFull, exemptDoNotCount, fresh], 'newsletter');
    expect([...verdicts.keys()].sort()).toEqual([full.id, weekFull.id].sort());
    expect(verdicts.get(full.id)).toEqual({ onCap: 'delay', cap: policy.caps[0], until: hoursAgo(20 - 24) });
    expect(verdicts.get(weekFull.id)).toEqual({ onCap: 'skip', cap: policy.caps[1], until: hoursAgo(100 - 168) });
  });

  it('asks nothing for an exempt category, and matches addresses without regard to case', async () => {
    const address = `${randomUUID()}@Caps.example`;
    const contact = await contactWith(
      [
        ['newsletter', 1],
        ['newsletter', 2],
      ],
      address,
    );
    expect((await capped([{ ...contact, email: address.toLowerCase() }], 'newsletter')).size).toBe(1);
    expect((await capped([contact], 'journey')).size).toBe(0);
  });

  it('claimCapRoom: sends decided at the same moment never share the last slot, and a claim counts until released', async () => {
    const email = `${randomUUID()}@caps.example`;
    await contactWith([['newsletter', 3]], email);
    const attempt = (key: string) => claimCapRoom(db, policy, { sends: [{ idempotencyKey: key, email }], category: 'newsletter', at });
    const keys = ['a', 'b', 'c', 'd'].map((name) => `${name}-${randomUUID()}`);
    const answers = await Promise.all(keys.map(attempt));
    // one slot was left of 2 per 24h: one send admitted, three capped until the earlier send leaves the window
    expect(answers.filter((answer) => answer.size === 0)).toHaveLength(1);
    for (const answer of answers.filter((candidate) => candidate.size === 1)) expect([...answer.values()][0]!.until).toEqual(hoursAgo(3 - 24));
    // released without a row (the send path skipped it): the slot is free again
    const admitted = keys[answers.findIndex((answer) => answer.size === 0)]!;
    await releaseCapClaims(db, [admitted]);
    expect((await attempt(`e-${randomUUID()}`)).size).toBe(0);
  });

  it('claimCapRoom: a chunk counts its own sends to one address, in order', async () => {
    const email = `${randomUUID()}@caps.example`;
    const sends = ['x', 'y', 'z'].map((name) => ({ idempotencyKey: `${name}-${randomUUID()}`, email }));
    const capped = await claimCapRoom(db, policy, { sends, category: 'newsletter', at });
    expect([...capped.keys()]).toEqual([sends[2]!.idempotencyKey]);
    await releaseCapClaims(
      db,
      sends.map((send) => send.idempotencyKey),
    );
  });
});
