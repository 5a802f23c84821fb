import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { templateKeys } from './keys';

/** Every React Email template of the installation with its sample data. */
export function useTemplatesQuery() {
  return useQuery({ queryKey: templateKeys.list, queryFn: async ({ signal }) => unwrap(await api.GET('/v1/admin/templates', { signal })) });
}
