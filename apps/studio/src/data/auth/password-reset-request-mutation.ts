import { useMutation } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';

async function requestPasswordReset(email: string) {
  return unwrap(await api.POST('/api/auth/request-password-reset', { body: { email } }));
}

export function usePasswordResetRequestMutation({ onSuccess }: { onSuccess: () => void }) {
  return useMutation({ mutationFn: requestPasswordReset, onSuccess });
}
