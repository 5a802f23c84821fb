import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { QueryOf } from '../types';
import { emailKeys } from './keys';

/** A page of sends, newest first, filtered by status, template, recipient and time. */
export function useEmailsQuery(query: QueryOf<'/v1/admin/emails'>) {
  return useQuery({
    queryKey: emailKeys.list(query),
    queryFn: async ({ signal }) => unwrap(await api.GET('/v1/admin/emails', { params: { query }, signal })),
  });
}
