import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { emailKeys } from './keys';

/** The message rebuilt from its template and data, without tracking, so viewing it records nothing. */
export function useEmailRenderedQuery(id: string) {
  return useQuery({
    queryKey: emailKeys.rendered(id),
    queryFn: async ({ signal }) => unwrap(await api.GET('/v1/admin/emails/{id}/rendered', { params: { path: { id } }, signal })),
  });
}
