import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { eventKeys } from './keys';

type ReplayJob = components['schemas']['ReplayJob'];

function isDone(job: ReplayJob | undefined): boolean {
  return job?.status === 'completed' || job?.status === 'failed';
}

/** A background replay's progress, read every second until it completes or fails. */
export function useReplayJobQuery(id: string | undefined) {
  return useQuery({
    queryKey: eventKeys.replayJob(id),
    enabled: id !== undefined,
    queryFn: async ({ signal }) => unwrap(await api.GET('/v1/admin/events/replay-jobs/{id}', { params: { path: { id: id ?? '' } }, signal })).job,
    refetchInterval: (query) => (isDone(query.state.data) ? false : 1_000),
  });
}
