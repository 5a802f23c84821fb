import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openScratchDatabase } from '../../../../test/scratch-database';
import { listAuditLogs } from '../audit/audit-log';
import { listContacts } from '../contacts/contact-admin';
import { deleteContact, eraseContact } from '../contact-removal/remove-contact';
import { upsertContactsByExternalId } from '../contacts/upsert-contact';
import { emailTemplates } from '@waymark/journeys/templates/registry';
import { integrationEnv } from '../../../../test/test-env';
import { uniqueAddress } from '../../../../test/email-emulator';
import { deploymentCategories } from '../../../../test/deployment-categories';
import { loadConfig } from '../config/config';
import { createEmailDeps } from '../emails/create-email-deps';
import { listEmailSends } from '../emails/email-admin';
import { requeueFailedEmail } from '../emails/email-failures';
import { sendEmail } from '../emails/send-email';
import { listEvents } from '../events/events';
import { countJourneyStates, listJourneyStates } from '../journeys/journey-states';
import { createDatabase, type Db } from './database';

/**
 * The admin lists' totals come from counters that triggers keep (migration 0070) when no filter
 * is given, and from a count otherwise. Every total here is compared with a count(*) of the same
 * rows, after each kind of write the product does to these tables. A scratch database of the
 * file's own, so no other test file's writes move the totals between the two reads.
 */
describe('exact list totals (row counters, real PostgreSQL)', () => {
  let release: () => Promise<void>;
  let db: Db;
  const page = { limit: 5, offset: 0 };

  beforeAll(async () => {
    const scratch = await openScratchDatabase();
    release = scratch.release;
    db = createDatabase({ connectionString: scratch.url, max: 8 });
  });
  afterAll(async () => {
    await db.destroy();
    await release();
  });

  // the counters themselves, whatever the lists read: one statement, so one snapshot
  afterEach(async () => {
    const { rows } = await sql<{ table: string; counter: number; actual: number }>`
      select t as table, (select coalesce(sum(n), 0)::int from row_counts where table_name = t) as counter,
        (select count(*)::int from events where t = 'events') + (select count(*)::int from contacts where t = 'contacts')
          + (select count(*)::int from email_sends where t = 'email_sends') + (select count(*)::int from audit_logs where t = 'audit_logs') as actual
      from unnest(array['events', 'contacts', 'email_sends', 'audit_logs']) t`.execute(db);
    for (const row of rows) expect(row.counter, row.table).toBe(row.actual);
    const states = await sql<{ mismatched: number }>`
      select count(*)::int as mismatched from (select journey_id, status, sum(n) as n from journey_state_counts group by 1, 2 having sum(n) <> 0) c
        full join (select journey_id, status, count(*) as n from journey_states group by 1, 2) s using (journey_id, status)
      where c.n is distinct from s.n`.execute(db);
    expect(states.rows[0]?.mismatched).toBe(0);
    // the per-value counters of migrations 0132 and 0140, against a grouped count of each column
    const filters = await sql<{ mismatched: number }>`
      select count(*)::int as mismatched from (
        select table_name, column_name, value, sum(n) as n from filter_counts group by 1, 2, 3 having sum(n) <> 0) c
      full join (
        select 'audit_logs' as table_name, f.col as column_name, f.val as value, count(*) as n
          from audit_logs r, lateral (values ('actor', r.actor), ('resource', r.resource), ('action', r.action)) f (col, val) group by 2, 3
        union all
        select 'email_sends', 'template_key', template_key, count(*) from email_sends group by 3
        union all
        select 'email_sends', 'status', status, count(*) from email_sends group by 3) s using (table_name, column_name, value)
      where c.n is distinct from s.n`.execute(db);
    expect(filters.rows[0]?.mismatched).toBe(0);
  });

  async function countOf(table: string, where = sql`true`): Promise<number> {
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)} where ${where}`.execute(db);
    return rows[0]?.n ?? -1;
  }

  async function insertEvents(from: number, to: number, user = (g: string) => sql`'user-' || (${sql.raw(g)} % 7)`): Promise<void> {
    await sql`insert into events (user_id, event, properties, source, occurred_at)
      select ${user('g')}, (array['signed_up', 'viewed'])[g % 2 + 1], '{}'::jsonb, 'api', now() - g * interval '1 minute'
      from generate_series(${from}::int, ${to}::int) g`.execute(db);
  }

  async function expectEventTotals(): Promise<void> {
    expect((await listEvents(db, page)).total).toBe(await countOf('events'));
    expect((await listEvents(db, { ...page, userId: 'user-3' })).total).toBe(await countOf('events', sql`user_id = 'user-3'`));
    expect((await listEvents(db, { ...page, event: 'viewed' })).total).toBe(await countOf('events', sql`event = 'viewed'`));
    const from = new Date(Date.now() - 30 * 60_000);
    expect((await listEvents(db, { ...page, from })).total).toBe(await countOf('events', sql`occurred_at >= ${from}`));
  }

  it('events: multi-row and single-row inserts, a rolled-back insert, each filter', async () => {
    expect((await listEvents(db, page)).total).toBe(0);
    await insertEvents(1, 200);
    await insertEvents(201, 201);
    await db
      .transaction()
      .execute(async (trx) => {
        await sql`insert into events (user_id, event, properties, source) values ('user-rollback', 'x', '{}', 'api')`.execute(trx);
        throw new Error('roll back');
      })
      .catch(() => undefined);
    expect(await countOf('events')).toBe(201);
    await expectEventTotals();
  });

  it('concurrent inserting transactions on many connections stay exact', async () => {
    const before = await countOf('events');
    await Promise.all(
      Array.from({ length: 8 }, (_, worker) =>
        db.transaction().execute(async (trx) => {
          for (let i = 0; i < 10; i += 1)
            await sql`insert into events (user_id, event, properties, source) values (${`user-${worker}`}, 'viewed', '{}', 'api')`.execute(trx);
        }),
      ),
    );
    expect(await countOf('events')).toBe(before + 80);
    await expectEventTotals();
  });

  it('a purge by age and an erasure delete events; the totals follow', async () => {
    await sql`delete from events where occurred_at < now() - interval '150 minutes'`.execute(db);
    await expectEventTotals();
    await upsertContactsByExternalId(db, [{ externalId: 'user-3', email: 'three@example.com', properties: {} }]);
    const erased = await eraseContact(db, 'user-3');
    expect(erased.eventsDeleted).toBeGreaterThan(0);
    expect((await listEvents(db, { ...page, userId: 'user-3' })).total).toBe(0);
    await expectEventTotals();
  });

  it('contacts: an upsert that updates does not count twice; delete and erase; search', async () => {
    const contacts = Array.from({ length: 30 }, (_, i) => ({ externalId: `c-${i}`, email: `c${i}@example.com`, properties: {} }));
    await upsertContactsByExternalId(db, contacts);
    await upsertContactsByExternalId(db, contacts.slice(0, 10)); // all ten exist: updates only
    await upsertContactsByExternalId(db, [...contacts.slice(0, 5), { externalId: 'c-new', email: 'new@example.com', properties: {} }]);
    expect(await countOf('contacts')).toBe(31);
    expect((await listContacts(db, page)).total).toBe(31);
    await deleteContact(db, 'c-1');
    await eraseContact(db, 'c-2');
    expect((await listContacts(db, page)).total).toBe(await countOf('contacts'));
    expect((await listContacts(db, { ...page, search: 'c1' })).total).toBe(
      await countOf('contacts', sql`lower(email) like '%c1%' or lower(external_id) like '%c1%'`),
    );
    expect((await listContacts(db, { ...page, search: '' })).total).toBe(29);
  });

  it('emails and audit logs: inserts, deletes and each filter', async () => {
    await sql`insert into email_sends (user_id, template_key, from_email, to_email, subject, status, idempotency_key)
      select 'u' || g, (array['welcome', 'reset'])[g % 2 + 1], 'from@example.com', 'To' || (g % 3) || '@Example.com', 's',
        (array['sent', 'failed', 'queued'])[g % 3 + 1], 'row-counts-' || g
      from generate_series(1, 40) g`.execute(db);
    await sql`delete from email_sends where idempotency_key = 'row-counts-1'`.execute(db);
    expect((await listEmailSends(db, page)).total).toBe(39);
    expect((await listEmailSends(db, { ...page, status: 'sent' })).total).toBe(await countOf('email_sends', sql`status = 'sent'`));
    expect((await listEmailSends(db, { ...page, templateKey: 'reset' })).total).toBe(await countOf('email_sends', sql`template_key = 'reset'`));
    expect((await listEmailSends(db, { ...page, toEmail: 'to1@example.com' })).total).toBe(
      await countOf('email_sends', sql`lower(to_email) = 'to1@example.com'`),
    );

    await sql`insert into audit_logs (actor, action, resource, resource_id, detail, ip_address)
      select 'key-' || (g % 2), (array['create', 'delete'])[g % 2 + 1], 'contact', 'r' || g, '{}'::jsonb, '127.0.0.1' from generate_series(1, 25) g`.execute(
      db,
    );
    expect((await listAuditLogs(db, page)).total).toBe(await countOf('audit_logs'));
    expect((await listAuditLogs(db, { ...page, actor: 'key-1' })).total).toBe(await countOf('audit_logs', sql`actor = 'key-1'`));
    expect((await listAuditLogs(db, { ...page, action: 'delete', resource: 'contact' })).total).toBe(await countOf('audit_logs', sql`action = 'delete'`));
    // a lone actor, resource or action filter reads its counter (0132): after a delete, and for a value never written
    await sql`delete from audit_logs where resource_id in ('r1', 'r2', 'r4')`.execute(db);
    for (const filter of [
      { actor: 'key-0' },
      { actor: 'key-1' },
      { resource: 'contact' },
      { action: 'create' },
      { action: 'delete' },
      { resource: 'api_key' },
    ]) {
      const [column, value] = Object.entries(filter)[0]!;
      expect((await listAuditLogs(db, { ...page, ...filter })).total, JSON.stringify(filter)).toBe(
        await countOf('audit_logs', sql`${sql.ref(column)} = ${value}`),
      );
    }
    expect((await listEmailSends(db, { ...page, templateKey: 'welcome' })).total).toBe(await countOf('email_sends', sql`template_key = 'welcome'`));
    expect((await listEmailSends(db, { ...page, templateKey: 'never-sent' })).total).toBe(0);
  });

  it('journey states: per-status counts follow inserts, status changes and deletes', async () => {
    await sql`insert into journey_states (journey_id, user_id, user_email, status, workflow_id)
      select (array['j-a', 'j-b'])[g % 2 + 1], 'su-' || g, 's@example.com', (array['waiting', 'completed', 'failed'])[g % 3 + 1], 'row-counts-wf-' || g
      from generate_series(1, 60) g`.execute(db);
    await sql`update journey_states set status = 'exited' where journey_id = 'j-a' and status = 'waiting' and user_id in ('su-6', 'su-12')`.execute(db);
    await sql`update journey_states set current_node_id = 'step-2' where journey_id = 'j-b'`.execute(db); // no status change
    await sql`delete from journey_states where user_id in ('su-1', 'su-2', 'su-3')`.execute(db);

    const grouped = await sql<{ journeyId: string; status: string; n: number }>`
      select journey_id, status, count(*)::int as n from journey_states group by 1, 2`.execute(db);
    const counts = await countJourneyStates(db, ['j-a', 'j-b', 'j-none']);
    for (const row of grouped.rows) expect(counts.get(row.journeyId)?.[row.status as 'waiting']).toBe(row.n);
    expect(counts.get('j-none')).toEqual({ active: 0, waiting: 0, completed: 0, failed: 0, exited: 0 });
    expect(counts.get('j-a')?.exited).toBe(2);

    for (const status of ['waiting', 'completed', 'exited', undefined] as const) {
      const listed = await listJourneyStates(db, { journeyId: 'j-a', status, ...page });
      expect(listed.total).toBe(
        await countOf('journey_states', status === undefined ? sql`journey_id = 'j-a'` : sql`journey_id = 'j-a' and status = ${status}`),
      );
    }
    expect((await listJourneyStates(db, { journeyId: 'j-a', userId: 'su-4', ...page })).total).toBe(1);
  });

  it('TRUNCATE zeroes the counters, of the tables a cascade truncates too', async () => {
    expect((await listEmailSends(db, page)).total).toBe(39);
    // email_sends references journey_states: the cascade truncates it as well
    await sql`truncate events, journey_states cascade`.execute(db);
    expect((await listEvents(db, page)).total).toBe(0);
    expect((await listEmailSends(db, page)).total).toBe(0);
    expect((await countJourneyStates(db, ['j-a'])).get('j-a')?.waiting).toBe(0);
    await insertEvents(1, 3);
    expect((await listEvents(db, page)).total).toBe(3);
  });

  it("emails: the status counter (0140) follows the send path's status changes, a rollback and concurrent movers", async () => {
    const email = createEmailDeps(loadConfig(integrationEnv()), { db, templates: emailTemplates, categories: deploymentCategories });
    const statusTotals = async () => {
      for (const status of ['queued', 'rendered', 'sent', 'delivered', 'opened', 'clicked', 'bounced', 'failed'] as const) {
        expect((await listEmailSends(db, { ...page, status })).total, status).toBe(await countOf('email_sends', sql`status = ${status}`));
      }
    };
    // the real send path through the SES emulator: queued → rendered → sent
    const sent = await sendEmail(email, { templateKey: 'welcome', to: uniqueAddress('counts'), idempotencyKey: randomUUID() });
    expect(sent.status).toBe('sent');
    await statusTotals();
    // a provider that refuses: queued → rendered, released (no status change), then failed; requeued by a DLQ retry
    const refusing = { ...email, transport: { send: () => Promise.reject(new Error('provider down')) } };
    const key = randomUUID();
    await expect(sendEmail(refusing, { templateKey: 'welcome', to: uniqueAddress('counts'), idempotencyKey: key, maxAttempts: 1 })).resolves.toMatchObject({
      status: 'failed',
    });
    const failed = await db.selectFrom('emailSends').select('id').where('idempotencyKey', '=', key).executeTakeFirstOrThrow();
    await statusTotals();
    await requeueFailedEmail(db, failed.id);
    expect((await sendEmail(email, { templateKey: 'welcome', to: uniqueAddress('counts'), idempotencyKey: key })).status).toBe('sent');
    await statusTotals();
    // tracking and provider notifications move it on (the statements' shape: record-click.ts, process-notification.ts)
    await sql`update email_sends set status = 'delivered', delivered_at = now() where id = ${sent.emailSendId!}`.execute(db);
    await sql`update email_sends set status = case when status in ('sent', 'delivered') then 'opened' else status end where id = ${sent.emailSendId!}`.execute(
      db,
    );
    await sql`update email_sends set status = case when status in ('sent', 'delivered') then 'opened' else status end where id = ${sent.emailSendId!}`.execute(
      db,
    );
    await statusTotals();
    // a rolled-back status change leaves the counter as it was
    await expect(
      db.transaction().execute(async (trx) => {
        await sql`update email_sends set status = 'bounced' where id = ${sent.emailSendId!}`.execute(trx);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await statusTotals();
    // many sends moved at once, on 8 connections, each in the order of the send path
    await sql`insert into email_sends (template_key, from_email, to_email, subject, status, idempotency_key)
      select 'welcome', 'from@example.com', 'c' || g || '@example.com', 's', 'queued', 'row-counts-move-' || g from generate_series(1, 80) g`.execute(db);
    await Promise.all(
      Array.from({ length: 8 }, async (_, worker) => {
        for (const status of ['rendered', 'sent', 'delivered', 'clicked'] as const) {
          await sql`update email_sends set status = ${status} where idempotency_key like 'row-counts-move-%' and split_part(idempotency_key, '-', 4)::int % 8 = ${worker}`.execute(
            db,
          );
        }
      }),
    );
    await statusTotals();
  });
});
