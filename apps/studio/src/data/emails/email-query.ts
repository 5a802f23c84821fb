import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { emailKeys } from './keys';

/** One send with its tracked links and the journey run that sent it. */
export function useEmailQuery(id: string) {
  return useQuery({
    queryKey: emailKeys.detail(id),
    queryFn: async ({ signal }) => unwrap(await api.GET('/v1/admin/emails/{id}', { params: { path: { id } }, signal })),
  });
}
