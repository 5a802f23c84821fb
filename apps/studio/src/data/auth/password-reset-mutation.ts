import { useMutation } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { BodyOf } from '../types';

type Reset = BodyOf<'/api/auth/reset-password', 'post'>;

async function resetPassword(body: Reset) {
  return unwrap(await api.POST('/api/auth/reset-password', { body }));
}

/** Sets a new password with the token of the reset email (single use, 15 minutes). */
export function usePasswordResetMutation() {
  return useMutation({ mutationFn: resetPassword });
}
