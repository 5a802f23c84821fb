import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { deliveryPolicyKeys } from './keys';

/** The program holdout measured per journey with a goal (asked only under a policy with a program holdout: without one it answers 404). */
export function useProgramHoldoutOutcomesQuery() {
  return useQuery({
    queryKey: deliveryPolicyKeys.holdoutOutcomes(),
    queryFn: async ({ signal }) => unwrap(await api.GET('/v1/admin/delivery-policy/holdout/outcomes', { signal })),
  });
}
