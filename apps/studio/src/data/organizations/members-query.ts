import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { organizationKeys } from './keys';

export type Member = components['schemas']['OrganizationMember'];

/** The members of the active organization; nothing to ask for a user of none. */
export function useMembersQuery(orgId: string | undefined) {
  return useQuery({
    queryKey: organizationKeys.members(orgId ?? ''),
    queryFn: async ({ signal }) => unwrap(await api.GET('/api/auth/organization/{orgId}/members', { params: { path: { orgId: orgId ?? '' } }, signal })),
    enabled: orgId !== undefined,
  });
}
