import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { QueryOf } from '../types';
import { eventKeys } from './keys';

/** A page of the event stream, newest first. */
export function useEventsQuery(query: QueryOf<'/v1/admin/events'>) {
  return useQuery({
    queryKey: eventKeys.list(query),
    queryFn: async ({ signal }) => unwrap(await api.GET('/v1/admin/events', { params: { query }, signal })),
  });
}
