import type { QueryOf } from '../types';

export const apiKeyKeys = {
  all: ['api-keys'] as const,
  list: (query: QueryOf<'/v1/admin/api-keys'>) => [...apiKeyKeys.all, 'list', query] as const,
};
