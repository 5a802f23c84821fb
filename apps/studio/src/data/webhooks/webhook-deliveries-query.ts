import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import type { QueryOf } from '../types';
import { webhookKeys } from './keys';

type Delivery = components['schemas']['WebhookDelivery'];

/** While a delivery may still change, the list refreshes on its own (attempts run in the worker). */
const openStatuses = new Set<Delivery['status']>(['pending', 'retrying']);

/**
 * One endpoint's deliveries, newest first. `awaitedEventId`: an event just queued (a test) whose
 * delivery the worker has not created yet; the list refreshes until it shows.
 */
export function useWebhookDeliveriesQuery(id: string, query: QueryOf<'/v1/admin/webhook-endpoints/{id}/deliveries'>, awaitedEventId: string | undefined) {
  return useQuery({
    queryKey: webhookKeys.deliveries(id, query),
    queryFn: async ({ signal }) => unwrap(await api.GET('/v1/admin/webhook-endpoints/{id}/deliveries', { params: { path: { id }, query }, signal })),
    refetchInterval: (state) => {
      const deliveries = state.state.data?.deliveries ?? [];
      const awaited = awaitedEventId !== undefined && !deliveries.some((delivery) => delivery.eventId === awaitedEventId);
      return awaited || deliveries.some((delivery) => openStatuses.has(delivery.status)) ? 3_000 : false;
    },
  });
}
