import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { alertKeys } from './keys';

/** Every alert rule (full admins; others are not asked). */
export function useAlertRulesQuery({ enabled }: { enabled: boolean }) {
  return useQuery({ queryKey: alertKeys.rules, queryFn: async ({ signal }) => unwrap(await api.GET('/v1/admin/alerts/rules', { signal })), enabled });
}
