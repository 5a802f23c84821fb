import type { CatalogViolation } from '@waymark/journey';
import { emailOnlyUserId } from '../contacts/contact';
import { checkContactProperties } from '../contacts/time-zone';
import { CONTACT_KEY_REQUIRED } from '../contacts/upsert-contact';
import { newRowId } from '../db/ids';
import { badRequest } from '../errors/app-error';
import type { JourneyRegistry } from '../journeys/registry';

export type IngestSource = 'api' | 'webhook' | 'tracking' | 'lifecycle' | 'replay' | 'enroll' | 'import';

/**
 * What ingest does with a catalogued event whose properties miss their schema (EVENT_CATALOG_MODE,
 * docs/journeys.md "Catalog violations"): `quarantine` stores it with its violations and routes
 * nothing, `reject` refuses it (400, nothing stored), `off` stores and routes it as it came.
 */
export type CatalogMode = 'quarantine' | 'reject' | 'off';

/** One event as a caller hands it to the ingest pipeline (single or batched). */
export interface EventInput {
  name: string;
  userId?: string;
  email?: string;
  eventProperties?: Record<string, unknown>;
  contactProperties?: Record<string, unknown>;
  idempotencyKey?: string;
  timestamp?: Date;
  source: IngestSource;
}

/** An event checked and ready to store: the one shape both ingest paths write. */
export interface PreparedEvent {
  id: string;
  name: string;
  /** the events row's user id: the external id, else the lowercased address */
  userId: string;
  /** the contact's external id, when the event names one */
  externalId: string | undefined;
  email: string | undefined;
  eventProperties: Record<string, unknown>;
  contactProperties: Record<string, unknown> | undefined;
  occurredAt: Date;
  idempotencyKey: string | undefined;
  source: IngestSource;
  /** set when the catalog quarantined the event: it is stored and routes nothing */
  catalogViolations: CatalogViolation[] | undefined;
}

/** Earliest event time accepted: nothing a product reports can predate the Unix epoch. */
export const EVENT_TIME_MIN = new Date(0);
/** How far ahead of this server's clock an event time may be (clock skew between producers). */
export const EVENT_TIME_MAX_AHEAD_MS = 24 * 60 * 60 * 1000;

/** 400 for an event time that cannot be real: before 1970-01-01 or more than 24 h ahead. */
export function checkEventTime(time: Date, now = Date.now()): void {
  if (Number.isNaN(time.getTime()) || time.getTime() < EVENT_TIME_MIN.getTime() || time.getTime() > now + EVENT_TIME_MAX_AHEAD_MS) {
    throw badRequest('Invalid request: timestamp must be between 1970-01-01T00:00:00Z and 24 hours after the server time');
  }
}

/** Events keyed by email alone use the lowercased address as their user id. */
export function ingestUserId(input: Pick<EventInput, 'userId' | 'email'>): string {
  if (input.userId !== undefined && input.userId !== '') return input.userId;
  if (input.email !== undefined && input.email !== '') return emailOnlyUserId(input.email);
  throw badRequest(CONTACT_KEY_REQUIRED);
}

/**
 * Every rule an event must pass before it is written, for both ingest paths (one event, a batch):
 * a name, someone it is about, a time that can be real, and the event catalog in its mode. Throws
 * a 400 for what no mode stores; returns the event with its id, so a batch can be checked whole
 * before its first write.
 */
export function prepareEvent(deps: { journeys: JourneyRegistry; catalogMode: CatalogMode }, input: EventInput): PreparedEvent {
  const name = input.name.trim();
  if (name === '') throw badRequest('name must not be empty');
  if (input.timestamp !== undefined) checkEventTime(input.timestamp);
  checkContactProperties(input.contactProperties, 'contactProperties');
  const userId = ingestUserId(input);
  const eventProperties = input.eventProperties ?? {};
  return {
    id: newRowId(),
    name,
    userId,
    externalId: input.userId === undefined || input.userId === '' ? undefined : input.userId,
    email: input.email?.trim() || undefined,
    eventProperties,
    contactProperties: input.contactProperties,
    occurredAt: input.timestamp ?? new Date(),
    idempotencyKey: input.idempotencyKey,
    source: input.source,
    catalogViolations: catalogViolations(deps, name, eventProperties),
  };
}

function catalogViolations(
  deps: { journeys: JourneyRegistry; catalogMode: CatalogMode },
  name: string,
  properties: Record<string, unknown>,
): CatalogViolation[] | undefined {
  if (deps.catalogMode === 'off') return undefined;
  const check = deps.journeys.events.check(name, properties);
  if (check.ok) return undefined;
  if (deps.catalogMode === 'reject') throw badRequest(`eventProperties.${check.path}: ${check.message} (event '${name}' is in the event catalog)`);
  return check.violations;
}
