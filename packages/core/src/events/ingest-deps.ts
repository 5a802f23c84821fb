import type { Db } from '../db/database';
import type { JourneyRegistry } from '../journeys/registry';
import type { AppLogger } from '../logging/logger';
import type { EffectDispatcher } from './effect-dispatcher';
import type { CatalogMode, PreparedEvent } from './prepare-event';

/**
 * Points where a test injects a fault into the pipeline (the api killed between an event's commit
 * and its routing: apps/api/src/event-effects-crash.int.test.ts). A deployment passes none.
 */
export interface IngestFaults {
  /** after the statement that stored `events` and their effects has committed, before they are routed */
  afterCommit?(events: readonly PreparedEvent[]): Promise<void>;
}

/** What the ingest pipeline needs, shared by its steps (prepare-event, ingest, ingest-batch). */
export interface IngestDeps {
  db: Db;
  logger: Pick<AppLogger, 'warn' | 'error'>;
  journeys: JourneyRegistry;
  /** carries out the journey effects each stored event keeps in `event_effects` (effect-dispatcher.ts) */
  effects: EffectDispatcher;
  /** EVENT_CATALOG_MODE: what a catalogued event whose properties miss their schema becomes */
  catalogMode: CatalogMode;
  faults?: IngestFaults;
}
