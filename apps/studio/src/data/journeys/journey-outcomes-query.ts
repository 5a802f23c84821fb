import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { journeyKeys } from './keys';

/** The journey's conversions per arm, the lift and byStep (a journey with a goal or a holdout; others answer 409). */
export function useJourneyOutcomesQuery(id: string, { enabled }: { enabled: boolean }) {
  return useQuery({
    queryKey: journeyKeys.outcomes(id),
    queryFn: async ({ signal }) => unwrap(await api.GET('/v1/admin/journeys/{id}/outcomes', { params: { path: { id } }, signal })),
    enabled,
  });
}
