import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { metricKeys } from './keys';

/** Events per hour and emails per day, for the overview's charts. */
export function useActivityQuery(query: { hours: number; days: number }) {
  return useQuery({
    queryKey: metricKeys.activity(query),
    queryFn: async ({ signal }) => unwrap(await api.GET('/v1/admin/metrics/activity', { params: { query }, signal })),
  });
}
