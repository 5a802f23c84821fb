import { api, unwrap } from '../../api/client';
import { useInvalidatingMutation } from '../mutation';
import { journeyKeys } from './keys';

/** Switches a journey on or off; takes effect on the next trigger, running enrollments go on. */
export function useJourneyUpdateMutation(id: string) {
  return useInvalidatingMutation({
    mutationFn: async (enabled: boolean) => unwrap(await api.PATCH('/v1/admin/journeys/{id}', { params: { path: { id } }, body: { enabled } })),
    invalidates: () => [journeyKeys.all],
  });
}
