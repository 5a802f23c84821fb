import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { eventKeys } from './keys';

/** The journey runs an event started, resumed or exited. */
export function useEventJourneysQuery(id: string) {
  return useQuery({
    queryKey: eventKeys.journeys(id),
    queryFn: async ({ signal }) => unwrap(await api.GET('/v1/admin/events/{id}/journeys', { params: { path: { id } }, signal })),
  });
}
