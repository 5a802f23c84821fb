import type { QueryOf } from '../types';

export const emailKeys = {
  all: ['emails'] as const,
  list: (query: QueryOf<'/v1/admin/emails'>) => [...emailKeys.all, 'list', query] as const,
  detail: (id: string) => [...emailKeys.all, id, 'detail'] as const,
  rendered: (id: string) => [...emailKeys.all, id, 'rendered'] as const,
};
