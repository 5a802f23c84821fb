import type { QueryOf } from '../types';

/** The broadcast list, and under `broadcast(id)` what belongs to one broadcast (its recipients). */
export const broadcastKeys = {
  all: ['broadcasts'] as const,
  lists: ['broadcasts', 'list'] as const,
  list: (query: QueryOf<'/v1/admin/broadcasts'>) => [...broadcastKeys.lists, query] as const,
  broadcast: (id: string) => [...broadcastKeys.all, id] as const,
  detail: (id: string) => [...broadcastKeys.broadcast(id), 'detail'] as const,
  recipients: (id: string, query: QueryOf<'/v1/admin/broadcasts/{id}/recipients'>) => [...broadcastKeys.broadcast(id), 'recipients', query] as const,
};
