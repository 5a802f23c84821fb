import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { QueryOf } from '../types';
import { webhookKeys } from './keys';

/** A page of webhook endpoints (full admins; others are not asked). */
export function useWebhookEndpointsQuery(query: QueryOf<'/v1/admin/webhook-endpoints'>, { enabled }: { enabled: boolean }) {
  return useQuery({
    queryKey: webhookKeys.list(query),
    queryFn: async ({ signal }) => unwrap(await api.GET('/v1/admin/webhook-endpoints', { params: { query }, signal })),
    enabled,
  });
}
