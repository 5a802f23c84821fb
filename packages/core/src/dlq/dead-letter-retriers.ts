import { z } from 'zod';
import type { Db } from '../db/database';
import type { JsonObject } from '../db/schema';
import { requeueFailedEmail } from '../emails/email-failures';
import type { SendEmailInput, SendEmailResult } from '../emails/send-email';
import { badRequest, conflict } from '../errors/app-error';
import type { IngestInput, IngestResult, IngestSource } from '../events/ingest';
import { retryJourneyRun } from '../journeys/journey-dead-letters';
import type { JourneyOrchestrator } from '../journeys/orchestrator';
import { checkSendGate } from '../preferences/send-gate';
import { reopenWebhookDelivery } from '../webhooks/outbound/webhook-deliveries';
import type { DeadLetterRetriers } from './retry-dead-letter';

export interface DeadLetterRetrierDeps {
  db: Db;
  ingest(input: IngestInput): Promise<IngestResult>;
  sendEmail(input: SendEmailInput): Promise<SendEmailResult>;
  orchestrator: Pick<JourneyOrchestrator, 'startJourney'>;
  /** starts a fresh delivery run of one parked outbound webhook delivery (temporal/outbound-client.ts) */
  redeliverWebhook(input: { outboundEventId: string; deliveryId: string; dlqEntryId: string }): Promise<void>;
}

/** core/webhooks/outbound/webhook-deliveries.ts parkWebhookDelivery */
const webhookDeliveryPayload = z.object({ deliveryId: z.string().min(1) });

/** core/emails/email-failures.ts emailRetryPayload */
const emailPayload = z.object({
  emailSendId: z.string().optional(),
  templateKey: z.string().min(1),
  to: z.string().min(1),
  from: z.string().optional(),
  userId: z.string().nullable().optional(),
  category: z.string().min(1),
  journeyStateId: z.string().nullable().optional(),
  idempotencyKey: z.string().nullable().optional(),
  data: z.record(z.string(), z.unknown()).default({}),
});

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

const journeyRequest = z.object({
  journeyId: z.string().min(1),
  userId: z.string().min(1),
  userEmail: z.string(),
  properties: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
  trigger: z.object({ event: z.string(), eventId: z.string(), occurredAt: z.string() }),
});
/** journey-start: Temporal refused to start the run; journey-run: the run started and failed. */
const journeyPayload = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('journey-start'), request: journeyRequest }),
  z.object({ kind: z.literal('journey-run'), request: journeyRequest }),
]);

function parsePayload<T>(schema: z.ZodType<T>, payload: JsonObject, what: string): T {
  const result = schema.safeParse(payload);
  if (!result.success) throw badRequest(`DLQ payload is not a retryable ${what}: ${result.error.issues[0]?.message ?? 'invalid'}`);
  return result.data;
}

/**
 * How each source is re-queued through its original pipeline (docs/operations.md):
 * - email: the send path again (same row, same idempotency key), after the send gate; a
 *   recipient unsubscribed or suppressed since is a 409 (discard the entry instead);
 * - webhook, event: the payload is an ingest input, re-ingested through the full pipeline;
 * - journey: a journey start that Temporal refused is started again (same workflow id, so a run
 *   that did start meanwhile is not duplicated); a run that failed is run again for the user
 *   under a new workflow id (journeys/journey-dead-letters.ts).
 * - webhook-delivery: the outbound delivery is opened again and runs a fresh retry schedule,
 *   with the same `webhook-id` (receivers dedupe on it).
 * `alert` and `import` entries are not retried automatically (a past alert is stale; resubmit
 * an import), so they answer 409.
 */
export function createDeadLetterRetriers(deps: DeadLetterRetrierDeps): DeadLetterRetriers {
  const reingest = (source: IngestSource) => async (entry: { payload: JsonObject }) => {
    const input = parsePayload(eventPayload, entry.payload, 'event');
    await deps.ingest({ ...input, source } as IngestInput);
  };
  return {
    email: async (entry) => {
      const payload = parsePayload(emailPayload, entry.payload, 'email');
      const gate = await checkSendGate(deps.db, payload.to, payload.category);
      if (!gate.allowed) throw conflict(`The recipient is blocked (${gate.reason ?? 'blocked'}); discard the entry instead`);
      if (payload.emailSendId !== undefined) await requeueFailedEmail(deps.db, payload.emailSendId);
      // a send that fails again parks a fresh DLQ entry itself; this one stays `retried`
      await deps.sendEmail({
        templateKey: payload.templateKey,
        to: payload.to,
        data: payload.data as JsonObject,
        userId: payload.userId ?? undefined,
        category: payload.category,
        journeyStateId: payload.journeyStateId ?? undefined,
        idempotencyKey: payload.idempotencyKey ?? `dlq-retry:${entry.id}`,
        from: payload.from,
      });
    },
    webhook: reingest('webhook'),
    'webhook-delivery': async (entry) => {
      const { deliveryId } = parsePayload(webhookDeliveryPayload, entry.payload, 'webhook delivery');
      const { outboundEventId } = await reopenWebhookDelivery(deps.db, deliveryId);
      await deps.redeliverWebhook({ outboundEventId, deliveryId, dlqEntryId: entry.id });
    },
    event: reingest('replay'),
    journey: async (entry) => {
      const payload = parsePayload(journeyPayload, entry.payload, 'journey start or run');
      switch (payload.kind) {
        case 'journey-start':
          await deps.orchestrator.startJourney(payload.request);
          return;
        case 'journey-run':
          await retryJourneyRun(deps, { dlqEntryId: entry.id, request: payload.request });
          return;
      }
    },
  };
}
