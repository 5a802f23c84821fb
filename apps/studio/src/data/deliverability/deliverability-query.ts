import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { deliverabilityKeys } from './keys';

/** The doctor's checks and the breaker's states; each read asks DNS and SES again, so kept a minute. */
export function useDeliverabilityQuery() {
  return useQuery({
    queryKey: deliverabilityKeys.all,
    queryFn: async ({ signal }) => unwrap(await api.GET('/v1/admin/deliverability', { signal })),
    staleTime: 60_000,
  });
}
