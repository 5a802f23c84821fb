import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmailTransport } from '@waymark/email/ses-transport';
import { emailTemplates } from '@waymark/journeys/templates/registry';
import { loadConfig } from '../config/config';
import { createDatabase, type Db } from '../db/database';
import type { SendRateGovernor } from '../send-rate/send-rate-governor';
import { integrationEnv } from '../../../../test/test-env';
import { emailsTo, uniqueAddress } from '../../../../test/email-emulator';
import { deploymentCategories } from '../../../../test/deployment-categories';
import { createEmailDeps } from './create-email-deps';
import type { EmailDeps } from './email-deps';
import { sendUntilSettled } from './send-until-settled';

/** The api's after-the-answer sends against real PostgreSQL and the SES emulator; failures wrap the real transport. */
describe('sendUntilSettled (auth emails retried in the process)', () => {
  const config = loadConfig(integrationEnv());
  let db: Db;
  let email: EmailDeps;
  const fast = { backoffMs: [10, 20] };

  beforeAll(() => {
    db = createDatabase({ connectionString: config.databaseUrl, max: 2 });
    email = createEmailDeps(config, { db, templates: emailTemplates, categories: deploymentCategories });
  });
  afterAll(() => db.destroy());

  /** The real transport, after `failures` provider errors. */
  const failingFirst = (failures: number): EmailTransport & { calls: number } => {
    const transport = {
      calls: 0,
      send: async (message: Parameters<EmailTransport['send']>[0]) => {
        transport.calls += 1;
        if (transport.calls <= failures) throw new Error(`SES: socket hang up (${transport.calls})`);
        return email.transport.send(message);
      },
    };
    return transport;
  };
  const rowOf = (key: string) => db.selectFrom('emailSends').selectAll().where('idempotencyKey', '=', key).executeTakeFirstOrThrow();

  it('sends once after provider errors that a single call would have left queued', async () => {
    const to = uniqueAddress('settle');
    const key = `password-reset:${randomUUID()}`;
    const transport = failingFirst(2);
    const result = await sendUntilSettled({ ...email, transport }, { templateKey: 'welcome', to, idempotencyKey: key }, fast);
    expect(result.status).toBe('sent');
    expect(transport.calls).toBe(3);
    expect(await rowOf(key)).toMatchObject({ status: 'sent', sendAttempts: 2 });
    expect(await emailsTo(to)).toHaveLength(1);
  });

  it('a provider that keeps failing ends the send failed, in the DLQ, after the send path’s attempts', async () => {
    const to = uniqueAddress('settle-fail');
    const key = `invitation:${randomUUID()}`;
    const transport = failingFirst(Number.POSITIVE_INFINITY);
    const result = await sendUntilSettled({ ...email, transport }, { templateKey: 'welcome', to, idempotencyKey: key, maxAttempts: 3 }, fast);
    expect(result).toMatchObject({ status: 'failed' });
    expect(transport.calls).toBe(3);
    const row = await rowOf(key);
    expect(row).toMatchObject({ status: 'failed', sendAttempts: 3 });
    expect(await db.selectFrom('dlqEntries').select('source').where('sourceId', '=', row.id).execute()).toEqual([{ source: 'email' }]);
    expect(await emailsTo(to)).toHaveLength(0);
  });

  it('throttling the send path does not count ends in the DLQ too once the loop gives up, never left queued', async () => {
    const to = uniqueAddress('settle-throttled');
    const key = `password-reset:${randomUUID()}`;
    let calls = 0;
    const throttling: EmailTransport = {
      send: async () => {
        calls += 1;
        throw Object.assign(new Error('Maximum sending rate exceeded.'), { name: 'Throttling' });
      },
    };
    const result = await sendUntilSettled({ ...email, transport: throttling }, { templateKey: 'welcome', to, idempotencyKey: key }, { ...fast, maxErrors: 4 });
    expect(result).toMatchObject({ status: 'failed', reason: expect.stringContaining('Maximum sending rate exceeded.') });
    expect(calls).toBe(4);
    const row = await rowOf(key);
    // throttling refuses the rate, not the message: the send path did not count these attempts
    expect(row).toMatchObject({ status: 'failed', sendAttempts: 0 });
    expect(await db.selectFrom('dlqEntries').select('source').where('sourceId', '=', row.id).execute()).toEqual([{ source: 'email' }]);
  });

  it('comes back at retryAt when the send rate defers the send', async () => {
    const to = uniqueAddress('settle-rate');
    const key = `password-reset:${randomUUID()}`;
    const asked: { key: string; at: number }[] = [];
    let retryAt = 0;
    const sendRate: SendRateGovernor = {
      acquire: async (sendKey) => {
        asked.push({ key: sendKey, at: Date.now() });
        if (asked.length > 1) return undefined;
        retryAt = Date.now() + 50;
        return new Date(retryAt);
      },
      recordThrottled: () => undefined,
      snapshot: () => Promise.reject(new Error('not read here')),
      close: async () => undefined,
    };
    const result = await sendUntilSettled({ ...email, sendRate }, { templateKey: 'welcome', to, idempotencyKey: key }, fast);
    expect(result.status).toBe('sent');
    // a slow emulator under a loaded run can cost one more (error-retried) call; the deferral is what is asked here
    expect(asked.length).toBeGreaterThanOrEqual(2);
    expect(asked.every((a) => a.key === key)).toBe(true);
    expect(asked[1]!.at).toBeGreaterThanOrEqual(retryAt);
    expect(await emailsTo(to)).toHaveLength(1);
  });

  it('does not retry what cannot succeed: an unknown template is thrown at once', async () => {
    const transport = failingFirst(0);
    await expect(
      sendUntilSettled({ ...email, transport }, { templateKey: 'no-such-template', to: uniqueAddress('settle'), idempotencyKey: randomUUID() }, fast),
    ).rejects.toThrow('Unknown email template "no-such-template"');
    expect(transport.calls).toBe(0);
  });
});
