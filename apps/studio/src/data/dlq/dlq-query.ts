import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { QueryOf } from '../types';
import { dlqKeys } from './keys';

/** A page of dead letters (full admins; others are not asked). */
export function useDlqQuery(query: QueryOf<'/v1/admin/dlq'>, { enabled }: { enabled: boolean }) {
  return useQuery({
    queryKey: dlqKeys.list(query),
    queryFn: async ({ signal }) => unwrap(await api.GET('/v1/admin/dlq', { params: { query }, signal })),
    enabled,
  });
}
