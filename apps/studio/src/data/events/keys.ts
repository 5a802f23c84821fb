import type { QueryOf } from '../types';

export const eventKeys = {
  all: ['events'] as const,
  list: (query: QueryOf<'/v1/admin/events'>) => [...eventKeys.all, 'list', query] as const,
  quarantinedCount: ['events', 'quarantined-count'] as const,
  journeys: (id: string) => [...eventKeys.all, id, 'journeys'] as const,
  replayJob: (id: string | undefined) => [...eventKeys.all, 'replay-jobs', id] as const,
};
