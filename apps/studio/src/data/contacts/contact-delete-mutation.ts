import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { contactKeys } from './keys';

/** GDPR delete: the contact and its preferences go for good, so every cached contact answer goes too. */
export function useContactDeleteMutation({ onSuccess }: { onSuccess: () => unknown }) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) => unwrap(await api.DELETE('/v1/admin/contacts/{id}', { params: { path: { id } } })),
    async onSuccess() {
      queryClient.removeQueries({ queryKey: contactKeys.all });
      await onSuccess();
    },
  });
}
