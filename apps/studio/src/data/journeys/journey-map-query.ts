import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { journeyKeys } from './keys';

/** The journey's map drawn from its code, with the numbers of one version (undefined: this deployment's). */
export function useJourneyMapQuery(id: string, version: string | undefined) {
  return useQuery({
    queryKey: journeyKeys.map(id, version),
    queryFn: async ({ signal }) =>
      unwrap(await api.GET('/v1/admin/journeys/{id}/map', { params: { path: { id }, query: version === undefined ? {} : { version } }, signal })),
  });
}
