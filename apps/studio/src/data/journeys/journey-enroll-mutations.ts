import { api, unwrap } from '../../api/client';
import { useInvalidatingMutation } from '../mutation';
import type { BodyOf } from '../types';
import { journeyKeys } from './keys';

type Enroll = BodyOf<'/v1/admin/journeys/{id}/enroll', 'post'>;
type EnrollBatch = BodyOf<'/v1/admin/journeys/{id}/enroll/batch', 'post'>;

/** Dispatches the trigger for one user; the journey's entry rules decide whether a run starts. */
export function useJourneyEnrollMutation(id: string) {
  return useInvalidatingMutation({
    mutationFn: async (body: Enroll) => unwrap(await api.POST('/v1/admin/journeys/{id}/enroll', { params: { path: { id } }, body })),
    invalidates: () => [journeyKeys.all],
  });
}

/** Up to 500 users at once (full admins). */
export function useJourneyEnrollBatchMutation(id: string) {
  return useInvalidatingMutation({
    mutationFn: async (users: EnrollBatch['users']) =>
      unwrap(await api.POST('/v1/admin/journeys/{id}/enroll/batch', { params: { path: { id } }, body: { users } })),
    invalidates: () => [journeyKeys.all],
  });
}
