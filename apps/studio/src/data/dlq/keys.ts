import type { QueryOf } from '../types';

export const dlqKeys = {
  all: ['dlq'] as const,
  list: (query: QueryOf<'/v1/admin/dlq'>) => [...dlqKeys.all, 'list', query] as const,
};
