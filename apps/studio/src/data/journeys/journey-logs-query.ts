import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { journeyKeys } from './keys';

/** The run log of one enrollment: each step it moved through. */
export function useJourneyLogsQuery(stateId: string) {
  return useQuery({
    queryKey: journeyKeys.logs(stateId),
    queryFn: async ({ signal }) => unwrap(await api.GET('/v1/admin/journey-logs/{stateId}', { params: { path: { stateId } }, signal })),
  });
}
