import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { QueryOf } from '../types';
import { auditLogKeys } from './keys';

/** Who changed what, from where, newest first. */
export function useAuditLogsQuery(query: QueryOf<'/v1/admin/audit-logs'>) {
  return useQuery({
    queryKey: auditLogKeys.list(query),
    queryFn: async ({ signal }) => unwrap(await api.GET('/v1/admin/audit-logs', { params: { query }, signal })),
  });
}
