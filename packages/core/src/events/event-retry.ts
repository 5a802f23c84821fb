import { z } from 'zod';
import type { DlqEntryRow } from '../db/schema';
import { parseDeadLetterPayload, type DeadLetterRetryHandlers } from '../dlq/retry-handlers';
import type { IngestInput, IngestResult } from './ingest';
import type { IngestSource } from './prepare-event';

/** An event that failed before it was stored (webhook sources, event producers): an ingest input. */
const eventPayload = z.object({
  name: z.string().min(1),
  userId: z.string().optional(),
  email: z.string().optional(),
  eventProperties: z.record(z.string(), z.unknown()).optional(),
  contactProperties: z.record(z.string(), z.unknown()).optional(),
  lists: z.record(z.string(), z.boolean()).optional(),
  idempotencyKey: z.string().optional(),
  timestamp: z.coerce.date().optional(),
});

/** Parked webhook and event payloads are ingest inputs: they are re-ingested through the full pipeline. */
export function registerEventRetryHandlers(handlers: DeadLetterRetryHandlers, deps: { ingest(input: IngestInput): Promise<IngestResult> }): void {
  const reingest = (source: IngestSource) => async (entry: DlqEntryRow) => {
    const input = parseDeadLetterPayload(eventPayload, entry.payload, 'event');
    await deps.ingest({ ...input, source });
  };
  handlers.register('webhook', reingest('webhook'));
  handlers.register('event', reingest('replay'));
}
