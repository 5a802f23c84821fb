import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { contactKeys } from './keys';

/** The lists the contact is on, subscribed or opted out. */
export function useContactListsQuery(id: string) {
  return useQuery({
    queryKey: contactKeys.lists(id),
    queryFn: async ({ signal }) => unwrap(await api.GET('/v1/admin/contacts/{id}/lists', { params: { path: { id } }, signal })),
  });
}
