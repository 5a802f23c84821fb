/**
 * A sending worker of `bench send-rate`, run as a child process (send-rate.ts starts two): the
 * production send activity (`sendJourneyEmail`: the journey step over the core send path, the SES
 * transport and the send-rate governor built from the environment as the worker builds them) over
 * its half of the run's journey states, with the journey's retry policy for that activity
 * (temporal/workflows/journey.ts `emailOptions`: up to 30 attempts, backoff 1 s doubling to 10 s,
 * `nextRetryDelay` when the activity names one). Temporal itself is left out: on this box its
 * dev server starts a few runs per second, so it, not the governor, would set the rate measured.
 * IPC: 'ready' once the governor has its budget; 'go' starts; answers with its tallies.
 */
import { ApplicationFailure } from '@temporalio/common';
import { loadConfig } from '@waymark/core/config/config';
import { createDatabase } from '@waymark/core/db/database';
import { createEmailDeps } from '@waymark/core/emails/create-email-deps';
import { createLogger } from '@waymark/core/logging/logger';
import { createConfiguredSendRateGovernor } from '@waymark/core/send-rate/send-rate-from-config';
import { emailTemplates } from '@waymark/journeys/templates/registry';
import { createSendJourneyEmailActivities } from '../../temporal/activities/send-journey-email';
import { deploymentCategories } from '../../test/deployment-categories';

/** in-flight sends per worker (each holds one of its 10 database connections at a time, as the worker does) */
const CONCURRENCY = Number(process.env.BENCH_SEND_CONCURRENCY ?? 20);
const MAX_ATTEMPTS = 30;

export interface SendRateWorkerTally {
  sent: number;
  failed: number;
  exhausted: number;
  deferrals: number;
  throttled: number;
  otherErrors: number;
  /** the other errors by message (the first 100 characters) */
  errors: Record<string, number>;
}

async function main(): Promise<void> {
  const config = loadConfig();
  const run = process.env.BENCH_SEND_RUN!;
  const index = Number(process.env.BENCH_SEND_INDEX);
  const logger = createLogger({ level: 'warn', name: 'bench-send-rate-worker', format: 'json' });
  const db = createDatabase({ connectionString: config.databaseUrl, applicationName: 'waymark-bench-send-rate', max: 10 });
  const sendRate = createConfiguredSendRateGovernor(config, logger);
  const { sendJourneyEmail } = createSendJourneyEmailActivities({
    email: createEmailDeps(config, { db, templates: emailTemplates, categories: deploymentCategories, logger, sendRate }),
  });
  const states = await db
    .selectFrom('journeyStates')
    .select(['id', 'userId', 'userEmail', 'workflowId'])
    .where('workflowId', 'like', `bench-rate-${run}-%`)
    .orderBy('workflowId')
    .execute();
  const mine = states.filter((_, n) => n % 2 === index);
  await sendRate.snapshot();
  process.send?.('ready');
  await new Promise<void>((resolve) => process.once('message', () => resolve()));

  const tally: SendRateWorkerTally = { sent: 0, failed: 0, exhausted: 0, deferrals: 0, throttled: 0, otherErrors: 0, errors: {} };
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  async function deliver(state: (typeof mine)[number]): Promise<void> {
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
      try {
        const result = await sendJourneyEmail({
          stateId: state.id,
          journeyId: 'welcome-series',
          userId: state.userId,
          userEmail: state.userEmail,
          templateKey: 'welcome',
          nodeId: 'welcome',
          data: { firstName: null },
          category: 'journey',
          idempotencyKey: `${state.workflowId}:welcome:1`,
        });
        if (result.status === 'sent') tally.sent += 1;
        else tally.failed += 1;
        return;
      } catch (error) {
        const failure = error instanceof ApplicationFailure ? error : undefined;
        if (failure?.type === 'SendRateDeferred') tally.deferrals += 1;
        else if (failure?.type === 'SesThrottling') tally.throttled += 1;
        else {
          tally.otherErrors += 1;
          const message = String((error as Error).message).slice(0, 100);
          tally.errors[message] = (tally.errors[message] ?? 0) + 1;
        }
        const delay = typeof failure?.nextRetryDelay === 'number' ? failure.nextRetryDelay : Math.min(1_000 * 2 ** (attempt - 1), 10_000);
        await sleep(delay);
      }
    }
    tally.exhausted += 1;
  }
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < mine.length) await deliver(mine[next++]!);
    }),
  );
  process.send?.(tally);
  await sendRate.close();
  await db.destroy();
  process.disconnect?.();
}

main().catch((error: unknown) => {
  console.error('bench send-rate worker failed:', error);
  process.exit(1);
});
