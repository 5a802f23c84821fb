import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { QueryOf } from '../types';
import { journeyKeys } from './keys';

/** Journeys in code with their trigger, switch and state counts. */
export function useJourneysQuery(query: QueryOf<'/v1/admin/journeys'>) {
  return useQuery({
    queryKey: journeyKeys.list(query),
    queryFn: async ({ signal }) => unwrap(await api.GET('/v1/admin/journeys', { params: { query }, signal })),
  });
}
