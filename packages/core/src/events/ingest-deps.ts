import type { Db } from '../db/database';
import type { JourneyOrchestrator } from '../journeys/orchestrator';
import type { JourneyRegistry } from '../journeys/registry';
import type { AppLogger } from '../logging/logger';
import type { CatalogMode } from './prepare-event';

/** What the ingest pipeline needs, shared by its steps (prepare-event, ingest, ingest-batch, route-event). */
export interface IngestDeps {
  db: Db;
  logger: Pick<AppLogger, 'warn' | 'error'>;
  journeys: JourneyRegistry;
  orchestrator: JourneyOrchestrator;
  /** EVENT_CATALOG_MODE: what a catalogued event whose properties miss their schema becomes */
  catalogMode: CatalogMode;
}
