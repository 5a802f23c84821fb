import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { QueryOf } from '../types';
import { journeyKeys } from './keys';

/** A page of the journey's enrollments, filtered by status or user. */
export function useJourneyStatesQuery(id: string, query: QueryOf<'/v1/admin/journeys/{id}/states'>) {
  return useQuery({
    queryKey: journeyKeys.states(id, query),
    queryFn: async ({ signal }) => unwrap(await api.GET('/v1/admin/journeys/{id}/states', { params: { path: { id }, query }, signal })),
  });
}
