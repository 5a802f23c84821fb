import type { QueryOf } from '../types';

/** Everything about journeys sits under `all`: switching, enrolling or cancelling refreshes counts, funnels and enrollments. */
export const journeyKeys = {
  all: ['journeys'] as const,
  list: (query: QueryOf<'/v1/admin/journeys'>) => [...journeyKeys.all, 'list', query] as const,
  detail: (id: string) => [...journeyKeys.all, id, 'detail'] as const,
  funnel: (id: string) => [...journeyKeys.all, id, 'funnel'] as const,
  outcomes: (id: string) => [...journeyKeys.all, id, 'outcomes'] as const,
  map: (id: string, version: string | undefined) => [...journeyKeys.all, id, 'map', version ?? 'deployed'] as const,
  states: (id: string, query: QueryOf<'/v1/admin/journeys/{id}/states'>) => [...journeyKeys.all, id, 'states', query] as const,
  logs: (stateId: string) => [...journeyKeys.all, 'logs', stateId] as const,
};
