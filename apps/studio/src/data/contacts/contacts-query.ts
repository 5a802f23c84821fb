import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { QueryOf } from '../types';
import { contactKeys } from './keys';

/** A page of contacts, most recently seen first, optionally searched by email or user id. */
export function useContactsQuery(query: QueryOf<'/v1/admin/contacts'>) {
  return useQuery({
    queryKey: contactKeys.list(query),
    queryFn: async ({ signal }) => unwrap(await api.GET('/v1/admin/contacts', { params: { query }, signal })),
  });
}
