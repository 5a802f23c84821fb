import { api, unwrap } from '../../api/client';
import { useInvalidatingMutation } from '../mutation';
import { journeyKeys } from './keys';

/** The user leaves the journey now (status exited) and its run is cancelled. */
export function useJourneyStateCancelMutation(id: string) {
  return useInvalidatingMutation({
    mutationFn: async (stateId: string) => unwrap(await api.DELETE('/v1/admin/journeys/{id}/states/{stateId}', { params: { path: { id, stateId } } })),
    invalidates: () => [journeyKeys.all],
  });
}
