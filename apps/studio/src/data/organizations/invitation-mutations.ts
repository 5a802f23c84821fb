import { api, unwrap } from '../../api/client';
import { useInvalidatingMutation, type MutationOptions } from '../mutation';
import type { BodyOf } from '../types';
import { organizationKeys } from './keys';

type Invite = BodyOf<'/api/auth/organization/{orgId}/invite', 'post'>;

async function invite(orgId: string, body: Invite) {
  return unwrap(await api.POST('/api/auth/organization/{orgId}/invite', { params: { path: { orgId } }, body }));
}

/** Emails an invitation link (single use, 7 days). */
export function useInvitationCreateMutation(orgId: string, options: MutationOptions<Awaited<ReturnType<typeof invite>>, Invite> = {}) {
  return useInvalidatingMutation({ mutationFn: (body: Invite) => invite(orgId, body), invalidates: () => [organizationKeys.invitations(orgId)], ...options });
}

/** Withdraws an invitation: the link in its email stops working at once. */
export function useInvitationRevokeMutation(orgId: string) {
  return useInvalidatingMutation({
    mutationFn: async (invitationId: string) =>
      unwrap(await api.DELETE('/api/auth/organization/{orgId}/invitations/{invitationId}', { params: { path: { orgId, invitationId } } })),
    invalidates: () => [organizationKeys.invitations(orgId)],
  });
}
