import { sql } from 'kysely';
import type { Db } from '../../db/database';
import { paginate, type PageQuery } from '../../db/paginate';
import type { WebhookEndpointRow } from '../../db/schema';
import { notFound } from '../../errors/app-error';
import { sealSecret, type SecretKeys } from '../../tokens/sealed-secret';
import { DELIVERY_QUEUE_CHANNEL } from './delivery-queue';
import { generateEndpointSecret, openEndpointUrl, sealEndpointUrl } from './endpoint-secret';
import type { OutboundEventType } from '../../outbox/event-types';

export const ENDPOINT_NOT_FOUND = 'Webhook endpoint not found';

/** An endpoint as the admin API shows it: everything but the secret and the delivery queue's backoff. */
export type WebhookEndpoint = Omit<WebhookEndpointRow, 'secret' | 'backoffUntil'>;

export interface WebhookEndpointInput {
  url: string;
  events: OutboundEventType[];
  description?: string | undefined;
  enabled?: boolean | undefined;
}

const publicColumns = ['id', 'url', 'description', 'events', 'enabled', 'disabledReason', 'disabledAt', 'failingSince', 'createdAt', 'updatedAt'] as const;

const shown = <Row extends { url: string }>(keys: SecretKeys, row: Row): Row => ({ ...row, url: openEndpointUrl(keys, row.url) });

/** The secret is kept sealed under `keys` (docs/security.md) and answered in clear, this once. */
export async function createWebhookEndpoint(db: Db, keys: SecretKeys, input: WebhookEndpointInput): Promise<WebhookEndpoint & { secret: string }> {
  const secret = generateEndpointSecret();
  const endpoint = await db
    .insertInto('webhookEndpoints')
    .values({
      url: sealEndpointUrl(keys, input.url),
      events: [...new Set(input.events)],
      description: input.description ?? null,
      enabled: input.enabled ?? true,
      secret: sealSecret(keys, secret, 'webhook endpoint secret'),
    })
    .returning(publicColumns)
    .executeTakeFirstOrThrow();
  return { ...shown(keys, endpoint), secret };
}

export async function listWebhookEndpoints(db: Db, keys: SecretKeys, page: PageQuery): Promise<{ endpoints: WebhookEndpoint[]; total: number }> {
  const all = db.selectFrom('webhookEndpoints');
  const { rows, total } = await paginate(all.select(publicColumns).orderBy('createdAt', 'desc').orderBy('id', 'desc'), all, page);
  return { endpoints: rows.map((row) => shown(keys, row)), total };
}

export async function getWebhookEndpoint(db: Db, keys: SecretKeys, id: string): Promise<WebhookEndpoint> {
  const row = await db.selectFrom('webhookEndpoints').select(publicColumns).where('id', '=', id).executeTakeFirst();
  if (row === undefined) throw notFound(ENDPOINT_NOT_FOUND);
  return shown(keys, row);
}

/** 404 unless the endpoint exists (what needs only its id opens nothing). */
export async function assertEndpointExists(db: Db, id: string): Promise<void> {
  const row = await db.selectFrom('webhookEndpoints').select('id').where('id', '=', id).executeTakeFirst();
  if (row === undefined) throw notFound(ENDPOINT_NOT_FOUND);
}

/**
 * Re-enabling an endpoint (enabled: true) also clears why it was disabled and its failure clock,
 * and drains the backlog that waited while it was disabled: its open deliveries are due now, each
 * on a fresh retry schedule.
 */
export type WebhookEndpointUpdate = Partial<Omit<WebhookEndpointInput, 'description'>> & { description?: string | null | undefined };

export async function updateWebhookEndpoint(db: Db, keys: SecretKeys, id: string, update: WebhookEndpointUpdate): Promise<WebhookEndpoint> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('webhookEndpoints')
      .set({
        updatedAt: new Date(),
        ...(update.url === undefined ? {} : { url: sealEndpointUrl(keys, update.url) }),
        ...(update.events === undefined ? {} : { events: [...new Set(update.events)] }),
        ...(update.description === undefined ? {} : { description: update.description }),
        ...(update.enabled === undefined ? {} : { enabled: update.enabled }),
        ...(update.enabled === true ? { disabledReason: null, disabledAt: null, failingSince: null, backoffUntil: null } : {}),
      })
      .where('id', '=', id)
      .returning(publicColumns)
      .executeTakeFirst();
    if (row === undefined) throw notFound(ENDPOINT_NOT_FOUND);
    if (update.enabled === true) {
      await trx
        .updateTable('webhookDeliveries')
        .set({ nextAttemptAt: new Date(), firstAttemptAt: null })
        .where('endpointId', '=', id)
        .where('status', 'in', ['pending', 'retrying'])
        .execute();
      await sql`select pg_notify(${DELIVERY_QUEUE_CHANNEL}, '')`.execute(trx);
    }
    return shown(keys, row);
  });
}

/** Deleting an endpoint drops its delivery history too; deliveries in flight stop at their next attempt. */
export async function deleteWebhookEndpoint(db: Db, id: string): Promise<void> {
  const result = await db.deleteFrom('webhookEndpoints').where('id', '=', id).executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) throw notFound(ENDPOINT_NOT_FOUND);
}

/**
 * A new secret replaces the old one at once: every later attempt (retries included) is signed
 * with it. The receiver should accept both while it switches (standard-webhooks allows several
 * signatures; docs/webhooks.md).
 */
export async function rotateWebhookEndpointSecret(db: Db, keys: SecretKeys, id: string): Promise<{ id: string; secret: string }> {
  const secret = generateEndpointSecret();
  const row = await db
    .updateTable('webhookEndpoints')
    .set({ secret: sealSecret(keys, secret, 'webhook endpoint secret'), updatedAt: new Date() })
    .where('id', '=', id)
    .returning('id')
    .executeTakeFirst();
  if (row === undefined) throw notFound(ENDPOINT_NOT_FOUND);
  return { id: row.id, secret };
}

/** Queues a `webhook.test` event for one endpoint; the worker delivers it like any other. */
export async function queueTestEvent(db: Db, id: string): Promise<{ eventId: string }> {
  await assertEndpointExists(db, id);
  const row = await db
    .insertInto('outboundEvents')
    .values({
      event: 'webhook.test',
      endpointId: id,
      payload: JSON.stringify({ endpointId: id, message: 'Test event from Waymark' }),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { eventId: row.id };
}
