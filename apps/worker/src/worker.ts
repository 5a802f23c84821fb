import { IllegalStateError } from '@temporalio/common';
import { Runtime, Worker } from '@temporalio/worker';
import type { Config } from '@waymark/core/config/config';
import type { Db } from '@waymark/core/db/database';
import { createAlertMailer } from '@waymark/core/alerts/alert-mailer';
import { systemEmailSealKey } from '@waymark/core/emails/sealed-input';
import { startSystemEmailRelay } from '@waymark/core/emails/system-email-relay';
import { createSystemEmails } from '@waymark/core/emails/system-emails';
import { upsertContact } from '@waymark/core/contacts/upsert-contact';
import { webhookDeliveryDeps } from '@waymark/core/webhooks/outbound/deliver-webhook';
import { startOutboundDispatcher, type OutboundDispatcher } from '@waymark/core/webhooks/outbound/outbound-dispatcher';
import { startEffectRelay } from '@waymark/core/events/effect-relay';
import { simulateJourney } from '@waymark/temporal/simulation/simulate';
import type { AppLogger } from '@waymark/core/logging/logger';
import { sdkLogger } from './sdk-logger';
import { createActivities } from '@waymark/temporal/activities/index';
import { breakerSettingsOf } from '@waymark/core/deliverability/breaker';
import { ensureAlertSchedule } from '@waymark/temporal/alerts-schedule';
import { createRuntime, type RuntimeDeps } from '@waymark/runtime/runtime';
import { connectWorkerTemporal } from '@waymark/runtime/worker-connection';
import type { Tracing } from '@waymark/core/logging/tracing';
import { workerTracing } from '@waymark/temporal/tracing';
import { dataConverterFor } from '@waymark/temporal/payload-codec';
import { workflowCode } from './workflow-bundle';

export interface WorkerDeps {
  config: Config;
  db: Db;
  logger: AppLogger;
  /** create the every-minute alert schedule if missing (the worker process does; tests opt in) */
  ensureSchedules?: boolean;
  /**
   * fan the outbox out into the delivery queue and work it with this process's own delivery slots,
   * beside the Temporal worker (the worker process does; tests opt in)
   */
  dispatchOutbound?: boolean;
  /** carry out the journey effects of events and start the system emails kept in their outboxes (the worker process does; tests opt in) */
  relayEventEffects?: boolean;
  /** instead of journeys/delivery-policy.ts (tests that need a cap of their own) */
  deliveryPolicy?: RuntimeDeps['deliveryPolicy'];
  /** this process's tracing (startTracing), when OTEL_EXPORTER_OTLP_ENDPOINT is set: runs and activities are traced */
  tracing?: Tracing | undefined;
}

let runtimeInstalled = false;

/** Builds a worker on the configured task queue; tests use it too, against the dev server. */
export async function createWorker(deps: WorkerDeps): Promise<{ worker: Worker; close: () => Promise<void> }> {
  if (!runtimeInstalled) {
    runtimeInstalled = true;
    try {
      Runtime.install({ logger: sdkLogger(deps.logger) });
    } catch (error) {
      // the hosting process installed it first (a test run's setup, which keeps warnings too): use that one
      if (!(error instanceof IllegalStateError)) throw error;
    }
  }
  const temporal = await connectWorkerTemporal(deps.config.temporal, deps.config.encryptionKeys, deps.tracing !== undefined);
  // lifecycle events (journey:completed / journey:failed) go through the same ingest pipeline as the api's
  const { journeys, categories, email, ingest, deliveryPolicy, effects } = createRuntime(deps.config, {
    db: deps.db,
    logger: deps.logger,
    orchestrator: temporal.orchestrator,
    ...(deps.deliveryPolicy === undefined ? {} : { deliveryPolicy: deps.deliveryPolicy }),
  });
  const systemEmails = createSystemEmails({
    db: deps.db,
    sealKey: systemEmailSealKey(deps.config.authSecret),
    start: temporal.systemEmails,
    logger: deps.logger,
  });
  const code = workflowCode(deps.config.temporal.workflowBundle, deps.tracing !== undefined);
  const worker = await Worker.create({
    connection: temporal.connection,
    namespace: deps.config.temporal.namespace,
    taskQueue: deps.config.temporal.taskQueue,
    ...code,
    // the same codec as every client's: runs read what the api sealed (docs/security.md)
    ...dataConverterFor(deps.config.encryptionKeys),
    // tracing on: Temporal's interceptors carry the trace through each run and activity, and the
    // runs' spans leave through a sink (docs/operations.md, "Tracing"); off, nothing is registered
    ...(await workerTracing(deps.tracing, { bundling: code.workflowsPath !== undefined })),
    // runs asleep for days need no cache; a bound keeps the worker's memory flat however many
    // runs wait, at the price of a replay when an evicted run wakes (docs/scaling.md)
    maxCachedWorkflows: deps.config.temporal.maxCachedWorkflows,
    activities: createActivities({
      db: deps.db,
      categories,
      email,
      ingest,
      config: deps.config,
      deliveryPolicy,
      upsertImportRow: async (row) => {
        await upsertContact(deps.db, { userId: row.externalId, email: row.email, properties: row.properties });
      },
      // operator notices are system emails: a run of their own over the send path (docs/email.md, "System emails")
      alertMailer: createAlertMailer((input) => systemEmails.send(input)),
      // the schedule's judge of the breakers resumes the broadcasts they paused through the same runs
      reputation: {
        db: deps.db,
        logger: deps.logger,
        settings: breakerSettingsOf(deps.config, deliveryPolicy),
        states: email.breakerStates,
        jobs: temporal.jobs,
      },
      journeys,
      // simulation jobs replay history in this process on the journey kit's virtual timeline, under
      // the installation's delivery policy, each person on their own clock
      simulate: (journey, subjects, options) =>
        simulateJourney(journey, subjects, { ...options, policy: deliveryPolicy, defaultTimeZone: deps.config.defaultTimeZone }),
    }),
    shutdownGraceTime: '30 seconds',
  });
  if (deps.ensureSchedules === true) {
    const outcome = await ensureAlertSchedule(temporal.client, temporal.taskQueue);
    deps.logger.info(`alert evaluation schedule ${outcome}`);
  }
  let dispatcher: OutboundDispatcher | undefined;
  if (deps.dispatchOutbound === true) {
    dispatcher = await startOutboundDispatcher({
      db: deps.db,
      databaseUrl: deps.config.databaseUrl,
      logger: deps.logger,
      delivery: webhookDeliveryDeps(deps.db, deps.config.webhooks, deps.config.encryptionKeys),
      concurrency: deps.config.webhooks.concurrency,
      endpointConcurrency: deps.config.webhooks.endpointConcurrency,
      historyDays: deps.config.webhooks.historyDays,
    });
  }
  // in the worker, not the api: it is the process that exists to run journeys and already holds the
  // background loops; several workers share the table safely (docs/operations.md, "Temporal outage")
  const relay =
    deps.relayEventEffects === true
      ? startEffectRelay({
          db: deps.db,
          orchestrator: temporal.orchestrator,
          logger: deps.logger,
          retryHours: deps.config.temporal.journeyStartRetryHours,
        })
      : undefined;
  // the system emails kept while Temporal could not start their runs (core/emails/system-emails.ts)
  const systemEmailRelay =
    deps.relayEventEffects === true ? startSystemEmailRelay({ db: deps.db, start: temporal.systemEmails, logger: deps.logger }) : undefined;
  return {
    worker,
    close: async () => {
      await relay?.close();
      await systemEmailRelay?.close();
      await effects.close();
      await systemEmails.drain();
      await dispatcher?.close();
      await email.sendRate.close();
      await temporal.close();
    },
  };
}
