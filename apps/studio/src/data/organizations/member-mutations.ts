import { useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { authKeys } from '../auth/keys';
import type { Role, SignedInSession } from '../auth/session-query';
import { useInvalidatingMutation } from '../mutation';
import { organizationKeys } from './keys';

/**
 * What a membership change makes stale: the member list, and the session when the change is to
 * the signed-in person's own membership (their role, so what the studio shows them).
 */
function useMembershipRefresh(orgId: string) {
  const queryClient = useQueryClient();
  return (userId: string) => {
    const self = queryClient.getQueryData<SignedInSession | null>(authKeys.session)?.user.id === userId;
    return self ? [organizationKeys.members(orgId), authKeys.session] : [organizationKeys.members(orgId)];
  };
}

/** A member's new role; the API refuses (409) to demote the last owner. The list reloads either way. */
export function useMemberRoleMutation(orgId: string, userId: string) {
  const invalidates = useMembershipRefresh(orgId);
  return useInvalidatingMutation({
    mutationFn: async (role: Role) =>
      unwrap(await api.PATCH('/api/auth/organization/{orgId}/members/{userId}', { params: { path: { orgId, userId } }, body: { role } })),
    invalidates: () => invalidates(userId),
    refreshOnError: true,
  });
}

export function useMemberRemoveMutation(orgId: string, userId: string) {
  const invalidates = useMembershipRefresh(orgId);
  return useInvalidatingMutation({
    mutationFn: async () => unwrap(await api.DELETE('/api/auth/organization/{orgId}/members/{userId}', { params: { path: { orgId, userId } } })),
    invalidates: () => invalidates(userId),
    refreshOnError: true,
  });
}
