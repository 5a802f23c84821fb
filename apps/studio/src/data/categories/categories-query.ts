import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { categoryKeys } from './keys';

/** Every declared category; they change only with a deploy, so never stale. */
export function useCategoriesQuery() {
  return useQuery({
    queryKey: categoryKeys.all,
    queryFn: async ({ signal }) => unwrap(await api.GET('/v1/admin/categories', { signal })),
    staleTime: Infinity,
  });
}
