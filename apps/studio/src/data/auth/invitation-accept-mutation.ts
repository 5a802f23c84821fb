import { api, unwrap } from '../../api/client';
import { useInvalidatingMutation, type MutationOptions } from '../mutation';
import type { BodyOf } from '../types';
import { authKeys } from './keys';

type Accept = BodyOf<'/api/auth/accept-invitation', 'post'>;

async function acceptInvitation(body: Accept) {
  return unwrap(await api.POST('/api/auth/accept-invitation', { body }));
}

/** Creates the account (or joins with an existing one) and signs in; the session gate reads the new role. */
export function useInvitationAcceptMutation(options: MutationOptions<Awaited<ReturnType<typeof acceptInvitation>>, Accept> = {}) {
  return useInvalidatingMutation({ mutationFn: acceptInvitation, invalidates: () => [authKeys.session], ...options });
}
