import { useMutation } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { useInvalidatingMutation } from '../mutation';
import type { BodyOf } from '../types';
import { eventKeys } from './keys';

type Replay = BodyOf<'/v1/admin/events/replay', 'post'>;
type ReplayJob = BodyOf<'/v1/admin/events/replay-jobs', 'post'>;

/** Replays chosen events (or up to 50 matching a filter) inside the request. */
export function useEventsReplayMutation() {
  return useInvalidatingMutation({
    mutationFn: async (body: Replay) => unwrap(await api.POST('/v1/admin/events/replay', { body })),
    invalidates: () => [eventKeys.all],
  });
}

/** Starts a background replay of up to 100,000 matching events; `useReplayJobQuery` follows it. */
export function useReplayJobStartMutation() {
  return useMutation({ mutationFn: async (body: ReplayJob) => unwrap(await api.POST('/v1/admin/events/replay-jobs', { body })).job });
}
