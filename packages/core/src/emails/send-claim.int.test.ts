import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/config';
import { createDatabase } from '../db/database';
import { integrationEnv } from '../../../../test/test-env';
import { claimSends } from './send-claim';

/** Claims with their tracked links against real PostgreSQL, on one connection (the one asked what it prepared). */
describe('claimSends (real PostgreSQL)', () => {
  const config = loadConfig(integrationEnv());
  const db = createDatabase({ connectionString: config.databaseUrl, max: 1 });
  afterAll(() => db.destroy());

  const queuedSend = async () =>
    (
      await db
        .insertInto('emailSends')
        .values({ templateKey: 'trial-welcome', toEmail: `claim-${randomUUID()}@example.com`, fromEmail: 'from@example.com', data: '{}', status: 'queued' })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;

  it('claims each send once with one link row per URL, reused by a later attempt, in one statement text for any number of sends and links', async () => {
    const [a, b, c] = [await queuedSend(), await queuedSend(), await queuedSend()];
    const [first] = await claimSends(db, [{ emailSendId: a, subject: 'A', urls: ['https://example.com/1', 'https://example.com/2'] }]);
    expect(first!.claimed).toBe(true);
    expect([...first!.linkIds.keys()].sort()).toEqual(['https://example.com/1', 'https://example.com/2']);

    const [again, second, none] = await claimSends(db, [
      { emailSendId: a, subject: 'A', urls: ['https://example.com/1', 'https://example.com/2'] },
      { emailSendId: b, subject: 'B', urls: ['https://example.com/3'] },
      { emailSendId: c, subject: 'C', urls: [] },
    ]);
    // already claimed: not claimed again, but its links keep their ids
    expect(again).toEqual({ claimed: false, linkIds: first!.linkIds });
    expect(second!.claimed).toBe(true);
    expect([...second!.linkIds.keys()]).toEqual(['https://example.com/3']);
    expect(none).toEqual({ claimed: true, linkIds: new Map() });
    const rows = await db.selectFrom('emailSends').select(['id', 'status', 'subject']).where('id', 'in', [a, b, c]).orderBy('subject').execute();
    expect(rows.map((row) => [row.subject, row.status])).toEqual([
      ['A', 'rendered'],
      ['B', 'rendered'],
      ['C', 'rendered'],
    ]);

    // one prepared statement served both calls (sent by name: db/named-statements.ts)
    const prepared = await sql<{ n: number }>`
      select count(*)::int as n from pg_prepared_statements where statement like '/* named */%insert into tracked_links%'`.execute(db);
    expect(prepared.rows[0]!.n).toBe(1);
  });
});
