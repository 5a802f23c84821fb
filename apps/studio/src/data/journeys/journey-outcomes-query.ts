import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { journeyKeys } from './keys';

/** The journey's conversions per arm, the lift and byStep (a journey with a goal or a holdout; others answer 409). */
export function useJourneyOutcomesQuery(id: string, { enabled, version }: { enabled: boolean; version?: string | undefined }) {
  return useQuery({
    queryKey: [...journeyKeys.outcomes(id), version ?? null],
    queryFn: async ({ signal }) =>
      unwrap(await api.GET('/v1/admin/journeys/{id}/outcomes', { params: { path: { id }, query: version === undefined ? {} : { version } }, signal })),
    enabled,
  });
}
