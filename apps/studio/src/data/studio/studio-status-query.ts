import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { studioKeys } from './keys';

/** Whether anyone can sign in yet (no users: the sign-in page explains how to create the first admin). */
export function useStudioStatusQuery() {
  return useQuery({ queryKey: studioKeys.status, queryFn: async ({ signal }) => unwrap(await api.GET('/v1/studio/status', { signal })) });
}
