import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/config';
import { createDatabase, type Db } from '../db/database';
import { integrationEnv } from '../../../../test/test-env';
import { checkSendGate, checkSendGateForAddresses } from './send-gate';

/** The send gate against real PostgreSQL: a set of addresses in one answer, the same as one by one. */
describe('send gate (checkSendGateForAddresses, checkSendGate)', () => {
  const config = loadConfig(integrationEnv());
  let db: Db;
  beforeAll(() => {
    db = createDatabase({ connectionString: config.databaseUrl, max: 2 });
  });
  afterAll(() => db.destroy());

  const address = (name: string) => `${name}-${randomUUID()}@example.com`;
  type Row = { email: string; userId?: string | null; suppressed?: boolean; unsubscribedAll?: boolean; categories?: Record<string, boolean> };
  const store = (...rows: Row[]) =>
    db
      .insertInto('emailPreferences')
      .values(rows.map((row) => ({ ...row, userId: row.userId ?? null, categories: JSON.stringify(row.categories ?? {}) })))
      .execute();

  it('answers each address of a set, every preference row of an address counting, the strictest reason winning', async () => {
    const fresh = address('fresh');
    const suppressed = address('suppressed');
    const unsubscribed = address('unsubscribed');
    const categoryOff = address('category-off');
    const otherCategoryOff = address('other-category-off');
    const split = address('split');
    const both = address('both');
    await store(
      { email: suppressed, suppressed: true },
      { email: unsubscribed, userId: `u-${randomUUID()}`, unsubscribedAll: true },
      { email: categoryOff, categories: { journey: false, news: true } },
      { email: otherCategoryOff, categories: { news: false, journey: true } },
      // rows of one address under different user ids: one turned the category off
      { email: split, userId: `u-${randomUUID()}`, categories: { journey: true } },
      { email: split.toUpperCase(), categories: { journey: false } },
      { email: both, unsubscribedAll: true, categories: { journey: false } },
      { email: both, userId: `u-${randomUUID()}`, suppressed: true },
    );

    const given = [fresh, suppressed, unsubscribed, categoryOff, otherCategoryOff, split, both];
    const answer = await checkSendGateForAddresses(db, given, 'journey');
    expect(Object.fromEntries(answer)).toEqual({
      [fresh]: { allowed: true },
      [suppressed]: { allowed: false, reason: 'suppressed' },
      [unsubscribed]: { allowed: false, reason: 'unsubscribed_all' },
      [categoryOff]: { allowed: false, reason: 'category_unsubscribed' },
      [otherCategoryOff]: { allowed: true },
      [split]: { allowed: false, reason: 'category_unsubscribed' },
      [both]: { allowed: false, reason: 'suppressed' },
    });
    // the one-address form gives the same answer for each
    for (const one of given) expect(await checkSendGate(db, one, 'journey')).toEqual(answer.get(one));

    const news = await checkSendGateForAddresses(db, [categoryOff, otherCategoryOff], 'news');
    expect(Object.fromEntries(news)).toEqual({ [categoryOff]: { allowed: true }, [otherCategoryOff]: { allowed: false, reason: 'category_unsubscribed' } });
  });

  it('lets a required category through every opt-out, never through suppression', async () => {
    const unsubscribed = address('required-unsubscribed');
    const categoryOff = address('required-category-off');
    const suppressed = address('required-suppressed');
    await store(
      { email: unsubscribed, unsubscribedAll: true },
      { email: categoryOff, categories: { receipts: false } },
      { email: suppressed, unsubscribedAll: true, suppressed: true },
    );
    const given = [unsubscribed, categoryOff, suppressed];
    const receipts = { key: 'receipts', required: true };
    expect(Object.fromEntries(await checkSendGateForAddresses(db, given, receipts))).toEqual({
      [unsubscribed]: { allowed: true },
      [categoryOff]: { allowed: true },
      [suppressed]: { allowed: false, reason: 'suppressed' },
    });
    // the same key, not required: the opt-outs count
    expect(Object.fromEntries(await checkSendGateForAddresses(db, given, { key: 'receipts', required: false }))).toEqual({
      [unsubscribed]: { allowed: false, reason: 'unsubscribed_all' },
      [categoryOff]: { allowed: false, reason: 'category_unsubscribed' },
      [suppressed]: { allowed: false, reason: 'suppressed' },
    });
  });

  it('keys the answer by the addresses as given, compared case-insensitively; an empty set asks nothing', async () => {
    const unsubscribed = address('Mixed-Case');
    await store({ email: unsubscribed.toLowerCase(), unsubscribedAll: true });
    const upper = unsubscribed.toUpperCase();
    const answer = await checkSendGateForAddresses(db, [unsubscribed, upper, unsubscribed], 'journey');
    expect([...answer.keys()]).toEqual([unsubscribed, upper]);
    expect(answer.get(upper)).toEqual({ allowed: false, reason: 'unsubscribed_all' });
    expect(answer.get(unsubscribed)).toEqual({ allowed: false, reason: 'unsubscribed_all' });
    expect((await checkSendGateForAddresses(db, [], 'journey')).size).toBe(0);
  });
});
