import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { QueryOf } from '../types';
import { apiKeyKeys } from './keys';

/** A page of API keys (full admins; others are not asked). */
export function useApiKeysQuery(query: QueryOf<'/v1/admin/api-keys'>, { enabled }: { enabled: boolean }) {
  return useQuery({
    queryKey: apiKeyKeys.list(query),
    queryFn: async ({ signal }) => unwrap(await api.GET('/v1/admin/api-keys', { params: { query }, signal })),
    enabled,
  });
}
