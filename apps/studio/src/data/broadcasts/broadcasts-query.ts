import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { QueryOf } from '../types';
import { broadcastKeys } from './keys';
import { refreshWhileLive } from './live-statuses';

/** A page of broadcasts, newest first, with status, progress and stats; refreshes while one is sending. */
export function useBroadcastsQuery(query: QueryOf<'/v1/admin/broadcasts'>) {
  return useQuery({
    queryKey: broadcastKeys.list(query),
    queryFn: async ({ signal }) => unwrap(await api.GET('/v1/admin/broadcasts', { params: { query }, signal })),
    refetchInterval: (state) => refreshWhileLive((state.state.data?.broadcasts ?? []).map((broadcast) => broadcast.status)),
  });
}
