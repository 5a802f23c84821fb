import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { journeyKeys } from './keys';

/** How many enrollments reached each step. */
export function useJourneyFunnelQuery(id: string) {
  return useQuery({
    queryKey: journeyKeys.funnel(id),
    queryFn: async ({ signal }) => unwrap(await api.GET('/v1/admin/journeys/{id}/funnel', { params: { path: { id } }, signal })),
  });
}
