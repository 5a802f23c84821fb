import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailTemplates } from '@waymark/journeys/templates/registry';
import { loadConfig } from '../config/config';
import { createDatabase, type Db } from '../db/database';
import { createEmailDeps } from '../emails/create-email-deps';
import type { EmailDeps } from '../emails/email-deps';
import { integrationEnv } from '../../../../test/test-env';
import { uniqueAddress } from '../../../../test/email-emulator';
import { deploymentCategories } from '../../../../test/deployment-categories';
import { deliverJourneyEmail } from './deliver-journey-email';
import { enterJourney, recordJourneyStep } from './run-steps';

/**
 * A journey email's statements in the worker go by name (db/named-statements.ts), so PostgreSQL
 * plans each a few times per connection rather than on every email (bench/HISTORY.md): each is
 * prepared on the connection, and their texts do not vary with the person, so a second email
 * prepares nothing new.
 */
describe("a journey email's statements (real PostgreSQL, SES emulator)", () => {
  const config = loadConfig(integrationEnv());
  let db: Db;
  let email: EmailDeps;

  beforeAll(() => {
    // one connection: the session that prepared the statements is the one asked about them
    db = createDatabase({ connectionString: config.databaseUrl, max: 1 });
    email = createEmailDeps(config, { db, templates: emailTemplates, categories: deploymentCategories });
  });
  afterAll(() => db.destroy());

  /** The run's first calls for one person: the entry, the welcome email, the step of the sleep after it. */
  async function journeyEmail(): Promise<void> {
    const to = uniqueAddress('named');
    const userId = `named-${randomUUID()}`;
    const workflowId = `journey:named:${randomUUID()}`;
    const entry = await enterJourney(
      db,
      { journeyId: 'named-journey', userId, userEmail: to, workflowId, runId: randomUUID(), entryLimit: 'once', context: {} },
      deploymentCategories,
    );
    if (!entry.entered) throw new Error(`not entered: ${entry.reason}`);
    const sent = await deliverJourneyEmail(email, {
      stateId: entry.stateId,
      journeyId: 'named-journey',
      userId,
      userEmail: to,
      templateKey: 'trial-welcome',
      nodeId: 'welcome',
      data: { firstName: 'Ada', plan: 'pro' },
      category: 'journey',
      idempotencyKey: `${workflowId}:welcome:1`,
    });
    expect(sent).toMatchObject({ status: 'sent' });
    expect(await recordJourneyStep(db, { stateId: entry.stateId, toNodeId: 'wait', action: 'waiting', status: 'waiting' })).toBe(true);
  }

  const prepared = async () =>
    (await sql<{ statement: string }>`select statement from pg_prepared_statements where statement like '/* named */%' order by name`.execute(db)).rows.map(
      (row) => row.statement.replace(/\s+/g, ' '),
    );

  it('prepares each statement of the entry and the send once, and nothing new for the next person', async () => {
    await journeyEmail();
    const first = await prepared();
    for (const part of [
      'left join journey_states own on own.workflow_id', // the entry's read
      'insert into journey_entries', // the entry's writes
      'left join email_sends s on s.idempotency_key', // the send's read
      'insert into "email_sends"', // its queued row
      'insert into tracked_links', // its claim with the tracked links
      'update email_sends set status', // the sent record with the email_sent step
      'select id from step_logged', // a step (the sleep's)
    ])
      expect(first.filter((statement) => statement.includes(part)).length, part).toBeGreaterThanOrEqual(1);

    await journeyEmail();
    expect(await prepared()).toEqual(first);
  });
});
