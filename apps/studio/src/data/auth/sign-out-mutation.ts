import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';

async function signOut() {
  return unwrap(await api.POST('/api/auth/sign-out'));
}

/** Signs out and forgets every cached answer, so the next person signing in on this tab sees none of it. */
export function useSignOutMutation({ onSuccess }: { onSuccess: () => unknown }) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: signOut,
    async onSuccess() {
      queryClient.clear();
      await onSuccess();
    },
  });
}
