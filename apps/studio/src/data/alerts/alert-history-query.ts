import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { QueryOf } from '../types';
import { alertKeys } from './keys';

/** When rules fired, newest first (full admins; others are not asked). */
export function useAlertHistoryQuery(query: QueryOf<'/v1/admin/alerts/history'>, { enabled }: { enabled: boolean }) {
  return useQuery({
    queryKey: alertKeys.history(query),
    queryFn: async ({ signal }) => unwrap(await api.GET('/v1/admin/alerts/history', { params: { query }, signal })),
    enabled,
  });
}
