import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { QueryOf } from '../types';
import { contactKeys } from './keys';

/** How one journey (and optionally one of its templates) went for the contact; asked only once a journey is chosen. */
export function useContactExplainQuery(id: string, query: QueryOf<'/v1/admin/contacts/{id}/explain'>) {
  return useQuery({
    queryKey: contactKeys.explain(id, query),
    queryFn: async ({ signal }) => unwrap(await api.GET('/v1/admin/contacts/{id}/explain', { params: { path: { id }, query }, signal })),
    enabled: query.journeyId !== '',
  });
}
