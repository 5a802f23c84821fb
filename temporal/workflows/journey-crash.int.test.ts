import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEachOnce, openCrashStack, storedEmails, type CrashKill, type CrashSendRow, type CrashStack } from '../../test/crash-stack';
import { eventually } from '../../test/eventually';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;
/** people who sign up in each run: each enters welcome-series, whose first step sends `welcome` */
const USERS = 300;
/** the share of the welcome emails sent when each SIGKILL of the worker lands */
const KILLS: readonly CrashKill[] = [
  { at: 0.15, target: 'worker' },
  { at: 0.4, target: 'worker' },
  { at: 0.65, target: 'worker' },
];
/** events posted at once, as a few busy clients would */
const LANES = 8;

/**
 * The journey side of the crash test (test/crash-stack.ts; the broadcast side is
 * broadcast-crash.int.test.ts): 300 people sign up and enter welcome-series, whose first step
 * sends an email, while the worker process is SIGKILLed three times mid-send. Each kill leaves the
 * sends it was inside the provider call for with an outcome their attempt cannot know (docs/email.md,
 * "Exactly once"). With SES event publishing on, SES's own events settle them (or their absence
 * sends them again): every person's welcome accepted by SES exactly once. With it off, the default
 * policy of the `journey` category (not required) drops them: `unknown_dropped`, at most once.
 * Either way nothing reaches the DLQ and nobody gets two.
 */
describe('journey emails survive worker crashes', () => {
  const domain = `${randomUUID().slice(0, 8)}.jcrash.example`;
  let stack: CrashStack | undefined;

  beforeAll(async () => {
    stack = await openCrashStack(LEGACY, 'journey-crash');
  }, 300_000);

  afterAll(async () => {
    await stack?.close();
  }, 120_000);

  it.each([
    ['off', false],
    ['on', true],
  ])(
    'SES event publishing %s: 300 sign-ups, the worker SIGKILLed 3 times mid-send, 0 DLQ entries, 0 duplicates',
    async (mode, publishing) => {
      const { db, api } = stack!;
      const startedSeconds = Math.floor(Date.now() / 1000) - 1;
      const runDomain = `${mode}.${domain}`;
      const address = (n: number) => `j${n}@${runDomain}`;
      const expected = new Set(Array.from({ length: USERS }, (_, i) => address(i + 1)));
      await stack!.usePublishing(publishing);
      await stack!.ensureRunning();

      let next = 1;
      const signUps = Promise.all(
        Array.from({ length: LANES }, async () => {
          for (let n = next++; n <= USERS; n = next++) {
            const accepted = await api('POST', '/v1/events', {
              token: LEGACY,
              body: { name: 'user.signed_up', userId: `jcrash-${mode}-${n}`, email: address(n), eventProperties: { firstName: `Reader ${n}` } },
            });
            expect(accepted.status, accepted.text).toBe(202);
          }
        }),
      );
      const count = async (statuses: readonly string[] | 'any sent') => {
        const row = await sql<{ n: number }>`
        select count(*)::int as n from email_sends where to_email like ${`%@${runDomain}`}
          and ${statuses === 'any sent' ? sql`sent_at is not null` : sql`status = any(${statuses}::text[])`}`.execute(db);
        return row.rows[0]!.n;
      };
      const sentAtKill = await stack!.killDuring(() => count('any sent'), USERS, KILLS);
      await signUps;
      // every kill landed while the welcomes were still being sent
      expect(sentAtKill).toHaveLength(KILLS.length);
      for (const n of sentAtKill) expect(n).toBeLessThan(USERS);

      // each send ends accepted or dropped; with publishing, an unknown one waits out the settle window first
      await eventually(
        () => count(['sent', 'delivered', 'unknown_dropped', 'failed']),
        (n) => n >= USERS,
        { timeoutMs: 900_000, intervalMs: 1_000, what: `all ${USERS} welcome emails settled` },
      );
      // still the same a few seconds on: no orphaned attempt of a killed worker sends late
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      const rows = (
        await sql<CrashSendRow>`
        select id, to_email as "toEmail", provider_message_id as "messageId", status
        from email_sends where to_email like ${`%@${runDomain}`}`.execute(db)
      ).rows;
      const stored = await storedEmails(runDomain, startedSeconds);
      const outcome = await expectEachOnce(db, { rows, stored, expected, publishing });
      console.info(
        `journey crash, publishing ${mode}: ${outcome.accepted} accepted exactly once, ${outcome.dropped} interrupted inside the provider call and dropped (${outcome.droppedButAccepted} of them had reached SES; with publishing, none is dropped: SES's event settles it or it is sent again), 0 in the DLQ; kills at ${sentAtKill.join(', ')} sent`,
      );
    },
    1_800_000,
  );
});
