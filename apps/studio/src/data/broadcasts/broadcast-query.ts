import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { broadcastKeys } from './keys';
import { refreshWhileLive } from './live-statuses';

/** One broadcast with its progress and stats; refreshes while it is scheduled, testing or sending. */
export function useBroadcastQuery(id: string | undefined) {
  return useQuery({
    queryKey: broadcastKeys.detail(id ?? ''),
    queryFn: async ({ signal }) => unwrap(await api.GET('/v1/admin/broadcasts/{id}', { params: { path: { id: id ?? '' } }, signal })),
    enabled: id !== undefined,
    refetchInterval: (state) => refreshWhileLive(state.state.data === undefined ? [] : [state.state.data.broadcast.status]),
  });
}
