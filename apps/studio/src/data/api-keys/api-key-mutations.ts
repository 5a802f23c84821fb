import { api, unwrap } from '../../api/client';
import { useInvalidatingMutation, type MutationOptions } from '../mutation';
import type { BodyOf } from '../types';
import { apiKeyKeys } from './keys';

type Create = BodyOf<'/v1/admin/api-keys', 'post'>;

async function createKey(body: Create) {
  return unwrap(await api.POST('/v1/admin/api-keys', { body }));
}

/** Creates a key; its secret is in this answer only. */
export function useApiKeyCreateMutation(options: MutationOptions<Awaited<ReturnType<typeof createKey>>, Create> = {}) {
  return useInvalidatingMutation({ mutationFn: createKey, invalidates: () => [apiKeyKeys.all], ...options });
}

/** Clients using the key get 401 from now on; there is no undo. */
export function useApiKeyRevokeMutation() {
  return useInvalidatingMutation({
    mutationFn: async (id: string) => unwrap(await api.DELETE('/v1/admin/api-keys/{id}', { params: { path: { id } } })),
    invalidates: () => [apiKeyKeys.all],
  });
}
