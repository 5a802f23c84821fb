import type { QueryOf } from '../types';

/** Everything about contacts sits under `all`: a change to one refreshes the lists and details showing it. */
export const contactKeys = {
  all: ['contacts'] as const,
  list: (query: QueryOf<'/v1/admin/contacts'>) => [...contactKeys.all, 'list', query] as const,
  detail: (id: string) => [...contactKeys.all, id, 'detail'] as const,
  lists: (id: string) => [...contactKeys.all, id, 'lists'] as const,
  timeline: (id: string, query: QueryOf<'/v1/admin/contacts/{id}/timeline'>) => [...contactKeys.all, id, 'timeline', query] as const,
  explain: (id: string, query: QueryOf<'/v1/admin/contacts/{id}/explain'>) => [...contactKeys.all, id, 'explain', query] as const,
};
