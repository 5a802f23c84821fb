import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { listKeys } from './keys';

/** Every known list, offered while typing a list key. */
export function useListsQuery({ enabled }: { enabled: boolean }) {
  return useQuery({ queryKey: listKeys.all, queryFn: async ({ signal }) => unwrap(await api.GET('/v1/admin/lists', { signal })), enabled });
}
