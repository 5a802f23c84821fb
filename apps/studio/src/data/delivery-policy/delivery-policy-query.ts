import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { deliveryPolicyKeys } from './keys';

/** The delivery policy; it changes only with a deploy, so never stale. */
export function useDeliveryPolicyQuery() {
  return useQuery({
    queryKey: deliveryPolicyKeys.all,
    queryFn: async ({ signal }) => unwrap(await api.GET('/v1/admin/delivery-policy', { signal })),
    staleTime: Infinity,
  });
}
