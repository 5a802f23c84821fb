import type { Db } from '@waymark/core/db/database';
import type { OutboundEventType } from '@waymark/core/outbox/event-types';

/**
 * An enabled endpoint subscribed to `events`, so that facts of those types write their outbox
 * rows (nothing is written while no endpoint listens). It points at the discard port: tests
 * that use it read the outbox, they do not run a dispatcher. Returns a remover for afterAll.
 */
export async function subscribeOutboxEndpoint(db: Db, events: OutboundEventType[]): Promise<() => Promise<void>> {
  const row = await db
    .insertInto('webhookEndpoints')
    .values({
      url: 'http://127.0.0.1:9/discard',
      events,
      secret: 'whsec_dGVzdC1zZWNyZXQtdGVzdC1zZWNyZXQ=',
      description: `outbox test subscriber ${events.join(' ')}`,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return async () => {
    await db.deleteFrom('webhookEndpoints').where('id', '=', row.id).execute();
  };
}
