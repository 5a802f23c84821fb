/**
 * The large dataset the admin-list benchmark reads (and a seed for trying the admin plane at
 * scale): events, contacts, email sends and audit log rows generated in SQL (generate_series),
 * in batches so no single statement holds a huge transaction. Timestamps spread over 90 days
 * unless `spanMinutes` says otherwise; so do the contacts' `last_seen_at`, a minute or two apart, as
 * an event stream leaves them (it once took 7 values, 28,571 contacts seen at the same instant, which
 * only a bulk import produces: bench/admin-lists.ts measures that case on its own).
 */
import { sql } from 'kysely';
import type { Db } from '@waymark/core/db/database';

export interface SeedSizes {
  events: number;
  contacts: number;
  emailSends: number;
  auditLogs: number;
  /** journey states spread over the given journeys, a fifth in each status (none by default) */
  journeyStates?: { count: number; journeyIds: readonly string[] };
  /** how far back timestamps spread, in minutes (default 90 days) */
  spanMinutes?: number;
}

const BATCH = 100_000;

async function inBatches(total: number, insert: (from: number, to: number) => Promise<unknown>): Promise<void> {
  for (let from = 1; from <= total; from += BATCH) await insert(from, Math.min(total, from + BATCH - 1));
}

export async function seedLarge(db: Db, sizes: SeedSizes, log: (line: string) => void = console.log): Promise<void> {
  const started = Date.now();
  const span = sizes.spanMinutes ?? 129_600;
  await inBatches(sizes.contacts, (from, to) =>
    sql`insert into contacts (external_id, email, properties, first_seen_at, last_seen_at, created_at)
      select 'seed-' || g, 'seed' || g || '@example.com', jsonb_build_object('plan', case when g % 3 = 0 then 'pro' else 'free' end, 'n', g),
        now() - (g % 90) * interval '1 day', now() - (g % ${span}) * interval '1 minute', now() - (g % 90) * interval '1 day'
      from generate_series(${from}::int, ${to}::int) g`.execute(db),
  );
  log(`seeded ${sizes.contacts} contacts (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  await inBatches(sizes.events, (from, to) =>
    sql`insert into events (user_id, user_email, event, properties, source, occurred_at, created_at)
      select 'seed-' || (g % ${sizes.contacts} + 1), 'seed' || (g % ${sizes.contacts} + 1) || '@example.com',
        (array['page.viewed', 'user.signed_up', 'plan.viewed', 'project.created'])[g % 4 + 1], jsonb_build_object('n', g), 'api',
        now() - (g % ${span}) * interval '1 minute', now() - (g % ${span}) * interval '1 minute'
      from generate_series(${from}::int, ${to}::int) g`.execute(db),
  );
  log(`seeded ${sizes.events} events (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  await inBatches(sizes.emailSends, (from, to) =>
    sql`insert into email_sends (user_id, template_key, from_email, to_email, subject, status, idempotency_key, sent_at, created_at)
      select 'seed-' || (g % ${sizes.contacts} + 1), 'welcome', 'seed@waymark.local', 'seed' || (g % ${sizes.contacts} + 1) || '@example.com',
        'Welcome', 'sent', 'seed-' || g, now() - (g % ${span}) * interval '1 minute', now() - (g % ${span}) * interval '1 minute'
      from generate_series(${from}::int, ${to}::int) g`.execute(db),
  );
  log(`seeded ${sizes.emailSends} email sends (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  await inBatches(sizes.auditLogs, (from, to) =>
    sql`insert into audit_logs (actor, action, resource, resource_id, detail, ip_address, created_at)
      select 'legacy', 'update', 'contact', 'seed-' || g, '{}'::jsonb, '127.0.0.1', now() - (g % ${span}) * interval '1 minute'
      from generate_series(${from}::int, ${to}::int) g`.execute(db),
  );
  const states = sizes.journeyStates;
  if (states !== undefined && states.count > 0) {
    await inBatches(states.count, (from, to) =>
      sql`insert into journey_states (journey_id, user_id, user_email, current_node_id, status, workflow_id, context, completed_at, exited_at, created_at, updated_at)
        select (${states.journeyIds}::text[])[g % ${states.journeyIds.length} + 1], 'seed-state-' || g, 'seed-state' || g || '@example.com', 'start',
          (array['active', 'waiting', 'completed', 'failed', 'exited'])[g % 5 + 1], 'seed-wf-' || g, '{}'::jsonb,
          case when g % 5 = 2 then now() - (g % ${span}) * interval '1 minute' end, case when g % 5 = 4 then now() - (g % ${span}) * interval '1 minute' end,
          now() - (g % ${span}) * interval '1 minute', now() - (g % ${span}) * interval '1 minute'
        from generate_series(${from}::int, ${to}::int) g`.execute(db),
    );
    log(`seeded ${states.count} journey states (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  }
  await sql`analyze`.execute(db);
  log(`seeded ${sizes.auditLogs} audit log rows; analyzed (${((Date.now() - started) / 1000).toFixed(0)} s)`);
}
