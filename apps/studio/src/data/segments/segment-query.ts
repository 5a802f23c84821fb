import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { segmentKeys } from './keys';

/** One saved segment; nothing is asked for a new one (`id` undefined). */
export function useSegmentQuery(id: string | undefined) {
  return useQuery({
    queryKey: segmentKeys.detail(id ?? ''),
    queryFn: async ({ signal }) => unwrap(await api.GET('/v1/admin/segments/{id}', { params: { path: { id: id ?? '' } }, signal })),
    enabled: id !== undefined,
  });
}
