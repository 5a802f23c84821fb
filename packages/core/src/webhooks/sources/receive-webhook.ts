import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { CatalogViolation } from '@waymark/journey';
import type { IngestEvent, SourceHeaders } from '@waymark/sources';
import { AppError, badRequest, notFound, unauthorized } from '../../errors/app-error';
import type { IngestInput, IngestResult } from '../../events/ingest';
import { ingestUserId } from '../../events/prepare-event';
import type { AppLogger } from '../../logging/logger';
import { authenticateSource } from './authenticate-source';
import type { PersonPropertyCache } from './person-cache';
import type { SourceRegistry } from './source-registry';

export interface ReceiveWebhookDeps {
  sources: SourceRegistry;
  personCache: Pick<PersonPropertyCache, 'rememberAndRecall'>;
  ingest(input: IngestInput): Promise<IngestResult>;
  /**
   * Spends one delivery of the source's budget, once the delivery is authenticated (so a forger
   * cannot spend a provider's); false when the budget is spent (the caller's 429 sets Retry-After).
   */
  admit(sourceId: string): Promise<boolean>;
  logger: Pick<AppLogger, 'warn'>;
}

export interface WebhookDelivery {
  sourceId: string;
  headers: SourceHeaders;
  rawBody: Buffer;
  /**
   * The api's check of request input (docs/api-contract.md): what in the parsed payload could not be
   * stored (NUL, a number beyond the finite range) or nests too deep, as a message; undefined when
   * nothing. The raw body is bytes, so the api's check of every request body has not seen it yet.
   */
  unstorable(payload: unknown): string | undefined;
}

export type WebhookOutcome =
  | { ok: true; skipped: true }
  | {
      ok: true;
      event: string;
      userId: string;
      exits: { journeyId: string; stateId: string }[];
      /** as POST /v1/events answers it: present only when the event catalog quarantined the event */
      quarantined?: true;
      catalogViolations?: CatalogViolation[];
    };

const properties = z.record(z.string(), z.unknown());

/** What a transform must return; checked, because a team's transform is code this service did not write. */
const ingestEventSchema = z.object({
  event: z.string().trim().min(1).max(200),
  userId: z.string().trim().min(1).max(255).optional(),
  userEmail: z.email().max(320).optional(),
  anonymousId: z.string().trim().min(1).max(255).optional(),
  eventProperties: properties,
  contactProperties: properties.optional(),
  idempotencyKey: z.string().min(1).max(1000).optional(),
});

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ');
}

/**
 * Namespaced by source, so two providers' delivery ids never collide in the events table's
 * unique key; hashed past its 255 characters.
 */
function eventKey(sourceId: string, deliveryId: string | undefined): string | undefined {
  if (deliveryId === undefined) return undefined;
  const key = `${sourceId}:${deliveryId}`;
  return key.length <= 255 ? key : `${sourceId}:sha256:${createHash('sha256').update(deliveryId).digest('hex')}`;
}

// an anonymous visitor is still somebody: their anonymous id stands in for a user id
const webhookUserId = (event: IngestEvent) => event.userId ?? (event.userEmail === undefined ? event.anonymousId : undefined);

/**
 * What the ingest pipeline receives for a source's event: an anonymous visitor's anonymous id
 * stands in for a user id (and is kept in the event's properties); the delivery id becomes
 * the idempotency key, namespaced by source. `email` is the event's address, or the one the
 * person property cache remembered.
 */
export function webhookIngestInput(sourceId: string, event: IngestEvent, email: string | undefined): IngestInput & { source: 'webhook' } {
  const userId = webhookUserId(event);
  const eventProperties =
    event.anonymousId === undefined || 'anonymousId' in event.eventProperties
      ? event.eventProperties
      : { ...event.eventProperties, anonymousId: event.anonymousId };
  const idempotencyKey = eventKey(sourceId, event.idempotencyKey);
  return {
    name: event.event,
    ...(userId === undefined ? {} : { userId }),
    ...(email === undefined ? {} : { email }),
    eventProperties,
    ...(event.contactProperties === undefined ? {} : { contactProperties: event.contactProperties }),
    ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
    source: 'webhook',
  };
}

/**
 * POST /v1/webhooks/{sourceId} (docs/sources.md), in the contract's order: unknown source 404 →
 * authentication 401 → the source's rate limit 429 → payload schema 400 → transform (nothing: skipped) → the same ingest
 * pipeline as POST /v1/events. Every refusal is logged with the source and the reason, never
 * the secret or the body.
 */
export async function receiveWebhook(deps: ReceiveWebhookDeps, delivery: WebhookDelivery): Promise<WebhookOutcome> {
  const { sourceId } = delivery;
  const reject = (error: AppError, reason: string): never => {
    deps.logger.warn({ sourceId, status: error.status, reason }, 'webhook source request rejected');
    throw error;
  };

  const mounted = deps.sources.find(sourceId);
  if (mounted === undefined) return reject(notFound('Unknown webhook source'), 'unknown source');
  const { source } = mounted;

  const verification = authenticateSource(mounted.auth, delivery.rawBody, delivery.headers);
  if (!verification.ok) {
    return reject(unauthorized(source.auth.type === 'match' ? 'Invalid webhook secret' : 'Invalid webhook signature'), verification.reason);
  }
  if (!(await deps.admit(sourceId))) return reject(new AppError('rate_limited', 'Rate limit exceeded'), 'over the source rate limit');

  let payload: unknown;
  try {
    payload = JSON.parse(delivery.rawBody.toString('utf8'));
  } catch {
    return reject(badRequest('Invalid payload: the body is not JSON'), 'body is not JSON');
  }
  const unstorable = delivery.unstorable(payload);
  if (unstorable !== undefined) return reject(badRequest(`Invalid payload: ${unstorable}`), unstorable);
  if (source.schema !== undefined) {
    const parsed = source.schema.safeParse(payload);
    if (!parsed.success) {
      const detail = describeIssues(parsed.error);
      return reject(badRequest(`Invalid payload: ${detail}`), `schema: ${detail}`);
    }
    payload = parsed.data;
  }

  let transformed: IngestEvent | null | undefined;
  try {
    transformed = source.transform(payload, delivery.headers);
  } catch (error) {
    return reject(badRequest(`Source ${sourceId} could not transform the payload`), `transform threw: ${(error as Error).message}`);
  }
  if (transformed === undefined || transformed === null) return { ok: true, skipped: true };
  const checked = ingestEventSchema.safeParse(transformed);
  if (!checked.success) {
    const detail = describeIssues(checked.error);
    return reject(badRequest(`Source ${sourceId} produced an invalid event: ${detail}`), `transform output: ${detail}`);
  }
  const event = checked.data;

  let email = event.userEmail;
  const userId = webhookUserId(event);
  if (source.propertyCache && userId !== undefined) {
    try {
      const remembered = await deps.personCache.rememberAndRecall(sourceId, userId, event.contactProperties);
      email ??= remembered;
    } catch (error) {
      deps.logger.warn({ sourceId, err: error }, 'webhook source: person property cache unavailable; event processed without it');
    }
  }
  const input = webhookIngestInput(sourceId, event, email);
  if (input.userId === undefined && input.email === undefined) {
    return reject(badRequest(`Source ${sourceId} produced an event that names nobody`), 'transform output names nobody');
  }
  const result = await deps.ingest(input);
  return {
    ok: true,
    event: event.event,
    userId: ingestUserId({ userId, email }),
    exits: result.exits.filter((exit) => exit.exited).map(({ journeyId, stateId }) => ({ journeyId, stateId })),
    ...(result.quarantined === true ? { quarantined: true, catalogViolations: result.catalogViolations ?? [] } : {}),
  };
}
