import type { Config } from '@waymark/core/config/config';
import type { Db } from '@waymark/core/db/database';
import { exemptRequiredCategories, requiredCategoryCapProblems, requiredCategoryHoldoutProblems } from '@waymark/core/delivery/required-categories';
import { createEmailDeps } from '@waymark/core/emails/create-email-deps';
import type { EmailDeps } from '@waymark/core/emails/email-deps';
import { ingestEvent, type IngestInput, type IngestResult } from '@waymark/core/events/ingest';
import { ingestEvents, type BatchIngestInput, type BatchIngestResult } from '@waymark/core/events/ingest-batch';
import type { IngestDeps, IngestFaults } from '@waymark/core/events/ingest-deps';
import { createEffectDispatcher, type EffectDispatcher } from '@waymark/core/events/effect-dispatcher';
import type { JourneyOrchestrator } from '@waymark/core/journeys/orchestrator';
import { createJourneyRegistry, type JourneyRegistry } from '@waymark/core/journeys/registry';
import type { AppLogger } from '@waymark/core/logging/logger';
import { createConfiguredSendRateGovernor } from '@waymark/core/send-rate/send-rate-from-config';
import { journeys as journeyDefinitions } from '@waymark/journeys';
import { categories as categoryDefinitions } from '@waymark/journeys/categories';
import { deliveryPolicy as deliveryPolicyDefinition } from '@waymark/journeys/delivery-policy';
import { events as eventCatalog } from '@waymark/journeys/events';
import { assertTemplateCategories, definePreferenceCategories, type PreferenceCategories } from '@waymark/email/preference-categories';
import { DeliveryPolicyError, deliveryPolicyCategoryProblems, type DeliveryPolicy } from '@waymark/journey';
import { emailTemplates } from '@waymark/journeys/templates/registry';
import { fileURLToPath } from 'node:url';
import { journeyVersions, type JourneyVersions } from './journey-versions';

/**
 * The composition root shared by the api, the worker and the CLI: this deployment's journeys,
 * email templates and event catalog (journeys/) joined to core's registry, send path and ingest
 * pipeline, built the same way in every process. It lives here, above core and journeys/, because
 * core may import neither journeys/ nor temporal/; the journey orchestrator is passed in, built by
 * client.ts on the api's lazy connection or by worker-connection.ts on the worker's native one.
 */
export interface Runtime {
  /** this deployment's journeys (journeys/index.ts) with ENABLED_JOURNEYS applied */
  journeys: JourneyRegistry;
  /** this deployment's preference categories (journeys/categories.ts): the preference center, the admin plane */
  categories: PreferenceCategories;
  /** this deployment's delivery policy (journeys/delivery-policy.ts), checked against the categories */
  deliveryPolicy: DeliveryPolicy;
  /** the send path: journeys/templates, the SES transport, unsubscribe tokens, the shared send-rate budget (close it with the process) */
  email: EmailDeps & { sendRate: NonNullable<EmailDeps['sendRate']> };
  /** the ingest pipeline: every path that accepts an event (routes, webhooks, DLQ retry, lifecycle events) calls this */
  ingest(input: IngestInput): Promise<IngestResult>;
  /** the batch form of the same pipeline (tracking events) */
  ingestBatch(inputs: readonly BatchIngestInput[]): Promise<BatchIngestResult[]>;
  /** carries out the journey effects of the events this process stores (close it with the process) */
  effects: EffectDispatcher;
}

export interface RuntimeDeps {
  db: Db;
  logger: AppLogger;
  orchestrator: JourneyOrchestrator;
  /** instead of journeys/delivery-policy.ts (tests that need a cap of their own) */
  deliveryPolicy?: DeliveryPolicy;
  /** faults a test injects into the ingest pipeline (events/ingest-deps.ts); none in a deployment */
  ingestFaults?: IngestFaults;
  /**
   * when an event's effects may be carried out: the api defers them past an audited change's unit of
   * work (db/scoped-transactions.ts), whose outbox rows are not committed until it ends; at once by default
   */
  afterCommit?: (work: () => void) => void;
}

export function createRuntime(config: Config, deps: RuntimeDeps): Runtime {
  const journeys = createDeploymentJourneys(config);
  const categories = deploymentCategories();
  assertTemplateCategories(emailTemplates, categories);
  const deliveryPolicy = checkedDeliveryPolicy(deps.deliveryPolicy ?? deliveryPolicyDefinition, categories);
  // one budget per process, shared through Redis with every other sending process (docs/email.md, "Send rate")
  const sendRate = createConfiguredSendRateGovernor(config, deps.logger);
  const effects = createEffectDispatcher({ db: deps.db, logger: deps.logger, orchestrator: deps.orchestrator });
  const afterCommit = deps.afterCommit;
  const ingestDeps: IngestDeps = {
    db: deps.db,
    logger: deps.logger,
    journeys,
    effects: afterCommit === undefined ? effects : { ...effects, dispatch: (event, committed) => afterCommit(() => effects.dispatch(event, committed)) },
    catalogMode: config.eventCatalogMode,
    ...(deps.ingestFaults === undefined ? {} : { faults: deps.ingestFaults }),
  };
  return {
    journeys,
    categories,
    deliveryPolicy,
    email: { ...createEmailDeps(config, { db: deps.db, templates: emailTemplates, categories, logger: deps.logger, deliveryPolicy, sendRate }), sendRate },
    ingest: (input) => ingestEvent(ingestDeps, input),
    ingestBatch: (inputs) => ingestEvents(ingestDeps, inputs),
    effects,
  };
}

/**
 * The registry half of the runtime, for a process with no send path or ingest (the CLI's
 * `explain`, which needs only ENABLED_JOURNEYS of the configuration).
 */
export function createDeploymentJourneys(config: Pick<Config, 'enabledJourneys'>): JourneyRegistry {
  return createJourneyRegistry(journeyDefinitions, {
    enabledJourneys: config.enabledJourneys,
    events: eventCatalog,
    categories: deploymentCategories(),
    versions: deploymentJourneyVersions(),
  });
}

/** journeys/categories.ts, checked (a bad list stops start-up); the CLI's doctor reads them too. */
export function deploymentCategories(): PreferenceCategories {
  return definePreferenceCategories(categoryDefinitions);
}

/**
 * journeys/delivery-policy.ts (or a test's policy), its categories checked: an unknown one, or a cap
 * on a required one, stops start-up naming it. Required categories come back exempt.
 */
export function checkedDeliveryPolicy(policy: DeliveryPolicy, categories: PreferenceCategories): DeliveryPolicy {
  const problems = [
    ...deliveryPolicyCategoryProblems(policy, (key) => categories.find(key) !== undefined),
    ...requiredCategoryCapProblems(policy, categories),
    ...requiredCategoryHoldoutProblems(policy, categories),
  ];
  if (problems.length > 0) throw new DeliveryPolicyError(problems);
  return exemptRequiredCategories(policy, categories);
}

/** This deployment's delivery policy, checked (the CLI's simulate, which builds no runtime). */
export function deploymentDeliveryPolicy(): DeliveryPolicy {
  return checkedDeliveryPolicy(deliveryPolicyDefinition, deploymentCategories());
}

/** journeys/ beside temporal/ in the repository; dist/journeys beside the bundles in a build */
export const DEPLOYMENT_JOURNEYS_DIR = fileURLToPath(new URL('../journeys/', import.meta.url));

let versions: JourneyVersions | undefined;

/**
 * This deployment's journey versions, read once per process from the journeys' sources: journeys/
 * beside temporal/ in the repository, dist/journeys beside the bundles in a build (scripts/build.ts
 * copies them there). The orchestrator stamps them on every run it starts.
 */
export function deploymentJourneyVersions(): JourneyVersions {
  versions ??= journeyVersions(
    journeyDefinitions.map((journey) => journey.id),
    DEPLOYMENT_JOURNEYS_DIR,
  );
  return versions;
}
