import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { templateKeys } from './keys';

/**
 * The template rendered on the server with `data`, in `locale` (one of its catalog's; undefined:
 * its default); nothing is asked while the data is not an object. The last preview stays on screen while the next renders, and a render error (bad
 * sample data) is shown at once, not retried.
 */
export function useTemplateRenderQuery(key: string, data: Record<string, unknown> | undefined, locale: string | undefined) {
  return useQuery({
    queryKey: templateKeys.render(key, data, locale),
    queryFn: async ({ signal }) => unwrap(await api.POST('/v1/admin/templates/{key}/render', { params: { path: { key } }, body: { data, locale }, signal })),
    enabled: data !== undefined,
    placeholderData: keepPreviousData,
    retry: false,
  });
}
