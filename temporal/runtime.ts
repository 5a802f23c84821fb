import type { Config } from '@waymark/core/config/config';
import type { Db } from '@waymark/core/db/database';
import { createEmailDeps } from '@waymark/core/emails/create-email-deps';
import type { EmailDeps } from '@waymark/core/emails/email-deps';
import { ingestEvent, type IngestInput, type IngestResult } from '@waymark/core/events/ingest';
import { ingestEvents, type BatchIngestInput, type BatchIngestResult } from '@waymark/core/events/ingest-batch';
import type { IngestDeps } from '@waymark/core/events/ingest-deps';
import type { JourneyOrchestrator } from '@waymark/core/journeys/orchestrator';
import { createJourneyRegistry, type JourneyRegistry } from '@waymark/core/journeys/registry';
import type { AppLogger } from '@waymark/core/logging/logger';
import { journeys as journeyDefinitions } from '@waymark/journeys';
import { categories as categoryDefinitions } from '@waymark/journeys/categories';
import { events as eventCatalog } from '@waymark/journeys/events';
import { assertTemplateCategories, definePreferenceCategories, type PreferenceCategories } from '@waymark/email/preference-categories';
import { emailTemplates } from '@waymark/journeys/templates/registry';
import { fileURLToPath } from 'node:url';
import { journeyVersions, type JourneyVersions } from './journey-versions';

/**
 * The composition root shared by the api, the worker and the CLI: this deployment's journeys,
 * email templates and event catalog (journeys/) joined to core's registry, send path and ingest
 * pipeline, built the same way in every process. It lives here, above core and journeys/, because
 * core may import neither journeys/ nor temporal/; the journey orchestrator is passed in (the api
 * starts runs through its client, the worker through its own connection).
 */
export interface Runtime {
  /** this deployment's journeys (journeys/index.ts) with ENABLED_JOURNEYS applied */
  journeys: JourneyRegistry;
  /** this deployment's preference categories (journeys/categories.ts): the preference center, the admin plane */
  categories: PreferenceCategories;
  /** the send path: journeys/templates, the SES transport, unsubscribe tokens */
  email: EmailDeps;
  /** the ingest pipeline: every path that accepts an event (routes, webhooks, DLQ retry, lifecycle events) calls this */
  ingest(input: IngestInput): Promise<IngestResult>;
  /** the batch form of the same pipeline (tracking events) */
  ingestBatch(inputs: readonly BatchIngestInput[]): Promise<BatchIngestResult[]>;
}

export interface RuntimeDeps {
  db: Db;
  logger: AppLogger;
  orchestrator: JourneyOrchestrator;
}

export function createRuntime(config: Config, deps: RuntimeDeps): Runtime {
  const journeys = createDeploymentJourneys(config);
  const categories = deploymentCategories();
  assertTemplateCategories(emailTemplates, categories);
  const ingestDeps: IngestDeps = { db: deps.db, logger: deps.logger, journeys, orchestrator: deps.orchestrator, catalogMode: config.eventCatalogMode };
  return {
    journeys,
    categories,
    email: createEmailDeps(config, { db: deps.db, templates: emailTemplates, logger: deps.logger }),
    ingest: (input) => ingestEvent(ingestDeps, input),
    ingestBatch: (inputs) => ingestEvents(ingestDeps, inputs),
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

/** journeys/categories.ts, checked (a bad list stops start-up). */
function deploymentCategories(): PreferenceCategories {
  return definePreferenceCategories(categoryDefinitions);
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
