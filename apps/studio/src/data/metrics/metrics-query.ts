import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { metricKeys } from './keys';

const WEEK_MS = 7 * 86_400_000;

/** Headline figures of the last 7 days, up to the moment of each (re)load. */
export function useLastWeekMetricsQuery() {
  return useQuery({
    queryKey: metricKeys.lastWeek,
    queryFn: async ({ signal }) => {
      const to = new Date();
      const query = { from: new Date(to.getTime() - WEEK_MS).toISOString(), to: to.toISOString() };
      return unwrap(await api.GET('/v1/admin/metrics', { params: { query }, signal }));
    },
  });
}
