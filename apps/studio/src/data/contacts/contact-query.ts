import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { contactKeys } from './keys';

/** One contact with its email preferences (null before any were stored). */
export function useContactQuery(id: string) {
  return useQuery({
    queryKey: contactKeys.detail(id),
    queryFn: async ({ signal }) => unwrap(await api.GET('/v1/admin/contacts/{id}', { params: { path: { id } }, signal })),
  });
}
