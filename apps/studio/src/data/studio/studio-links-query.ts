import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { studioKeys } from './keys';

/** Where the Temporal UI is, for links to a run; fixed for the life of the api, so never stale. */
export function useStudioLinksQuery() {
  return useQuery({
    queryKey: studioKeys.links,
    queryFn: async ({ signal }) => unwrap(await api.GET('/v1/admin/studio-links', { signal })),
    staleTime: Infinity,
  });
}
