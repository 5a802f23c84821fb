import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { eventKeys } from './keys';

/** How many events are quarantined (their properties miss the event catalog), for the events page's banner. */
export function useQuarantinedEventCountQuery() {
  return useQuery({
    queryKey: eventKeys.quarantinedCount,
    // one row is enough: the total is what the banner shows
    queryFn: async ({ signal }) => unwrap(await api.GET('/v1/admin/events', { params: { query: { limit: 1, offset: 0, quarantined: 'true' } }, signal })).total,
  });
}
