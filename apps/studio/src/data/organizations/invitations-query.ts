import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { organizationKeys } from './keys';

export type PendingInvitation = components['schemas']['PendingInvitation'];

/** Invitations not accepted yet and not expired (owners and admins only). */
export function useInvitationsQuery(orgId: string) {
  return useQuery({
    queryKey: organizationKeys.invitations(orgId),
    queryFn: async ({ signal }) => unwrap(await api.GET('/api/auth/organization/{orgId}/invitations', { params: { path: { orgId } }, signal })),
  });
}
