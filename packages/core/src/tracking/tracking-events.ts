import type { JsonObject } from '../db/schema';
import type { AnalyticsDestination } from './analytics';

/** A tracking event as the ingest pipeline takes it (SPEC §6 email.opened / email.link_clicked). */
export interface TrackingEvent {
  name: 'email.opened' | 'email.link_clicked';
  userId?: string;
  email?: string;
  eventProperties: JsonObject;
  source: 'tracking';
}

export interface TrackingDeps {
  /** the ingest pipeline (deps.ingest on the api) */
  ingest(event: TrackingEvent): Promise<unknown>;
  analytics: AnalyticsDestination;
  logger: { warn(object: object, message: string): void };
}

/**
 * Fire-and-forget (SPEC §4): the pixel and the redirect answer at once; a failure of the
 * pipeline or of analytics is logged, never surfaced to the recipient.
 */
export function publishTrackingEvent(deps: TrackingDeps, event: TrackingEvent): void {
  const distinctId = event.userId ?? event.email;
  if (distinctId !== undefined) deps.analytics.capture({ distinctId, event: event.name, properties: event.eventProperties });
  setImmediate(() => {
    deps.ingest(event).catch((error: unknown) => deps.logger.warn({ err: error, event: event.name }, 'tracking: could not push event through the ingest pipeline'));
  });
}
