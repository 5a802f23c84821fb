import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { templateKeys } from './keys';

/**
 * The template rendered on the server with `data`; nothing is asked while the data is not an
 * object. The last preview stays on screen while the next renders, and a render error (bad
 * sample data) is shown at once, not retried.
 */
export function useTemplateRenderQuery(key: string, data: Record<string, unknown> | undefined) {
  return useQuery({
    queryKey: templateKeys.render(key, data),
    queryFn: async ({ signal }) => unwrap(await api.POST('/v1/admin/templates/{key}/render', { params: { path: { key } }, body: { data }, signal })),
    enabled: data !== undefined,
    placeholderData: keepPreviousData,
    retry: false,
  });
}
