import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { QueryOf } from '../types';
import { broadcastKeys } from './keys';

/** A page of one broadcast's recipients, by status and variant; `refetchInterval` while it sends. */
export function useBroadcastRecipientsQuery(id: string, query: QueryOf<'/v1/admin/broadcasts/{id}/recipients'>, refetchInterval: number | false) {
  return useQuery({
    queryKey: broadcastKeys.recipients(id, query),
    queryFn: async ({ signal }) => unwrap(await api.GET('/v1/admin/broadcasts/{id}/recipients', { params: { path: { id }, query }, signal })),
    placeholderData: keepPreviousData,
    refetchInterval,
  });
}
