import type { QueryOf } from '../types';

export const auditLogKeys = {
  list: (query: QueryOf<'/v1/admin/audit-logs'>) => ['audit-logs', 'list', query] as const,
};
