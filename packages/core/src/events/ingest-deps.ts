import type { Db } from '../db/database';
import type { JourneyOrchestrator } from '../journeys/orchestrator';
import type { JourneyRegistry } from '../journeys/registry';
import type { AppLogger } from '../logging/logger';

/** What the ingest pipeline needs, shared by its steps (ingest, ingest-batch, route-event). */
export interface IngestDeps {
  db: Db;
  logger: Pick<AppLogger, 'warn' | 'error'>;
  journeys: JourneyRegistry;
  orchestrator: JourneyOrchestrator;
}
