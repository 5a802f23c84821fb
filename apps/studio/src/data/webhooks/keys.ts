import type { QueryOf } from '../types';

/** The endpoint list, and under `endpoint(id)` what belongs to one endpoint (its deliveries). */
export const webhookKeys = {
  all: ['webhook-endpoints'] as const,
  lists: ['webhook-endpoints', 'list'] as const,
  list: (query: QueryOf<'/v1/admin/webhook-endpoints'>) => [...webhookKeys.lists, query] as const,
  endpoint: (id: string) => [...webhookKeys.all, id] as const,
  deliveries: (id: string, query: QueryOf<'/v1/admin/webhook-endpoints/{id}/deliveries'>) => [...webhookKeys.endpoint(id), 'deliveries', query] as const,
};
