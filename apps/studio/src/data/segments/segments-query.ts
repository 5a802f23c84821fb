import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { QueryOf } from '../types';
import { segmentKeys } from './keys';

/** A page of saved segments, newest first, each with its count (computed by the API, up to 60 s old). */
export function useSegmentsQuery(query: QueryOf<'/v1/admin/segments'>) {
  return useQuery({
    queryKey: segmentKeys.list(query),
    queryFn: async ({ signal }) => unwrap(await api.GET('/v1/admin/segments', { params: { query }, signal })),
  });
}
