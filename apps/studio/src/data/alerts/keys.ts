import type { QueryOf } from '../types';

/** Rules and their history; deleting a rule takes its history with it, so that refreshes `all`. */
export const alertKeys = {
  all: ['alerts'] as const,
  rules: ['alerts', 'rules'] as const,
  history: (query: QueryOf<'/v1/admin/alerts/history'>) => [...alertKeys.all, 'history', query] as const,
};
