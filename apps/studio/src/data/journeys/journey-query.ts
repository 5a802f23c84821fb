import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { journeyKeys } from './keys';

export function useJourneyQuery(id: string) {
  return useQuery({
    queryKey: journeyKeys.detail(id),
    queryFn: async ({ signal }) => unwrap(await api.GET('/v1/admin/journeys/{id}', { params: { path: { id } }, signal })),
  });
}
