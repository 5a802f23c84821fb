import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { QueryOf } from '../types';
import { contactKeys } from './keys';

/** What happened to the contact (events, emails, journey runs), newest first. */
export function useContactTimelineQuery(id: string, query: QueryOf<'/v1/admin/contacts/{id}/timeline'>) {
  return useQuery({
    queryKey: contactKeys.timeline(id, query),
    queryFn: async ({ signal }) => unwrap(await api.GET('/v1/admin/contacts/{id}/timeline', { params: { path: { id }, query }, signal })),
  });
}
