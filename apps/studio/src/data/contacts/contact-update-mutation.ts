import { api, unwrap } from '../../api/client';
import { useInvalidatingMutation } from '../mutation';
import type { BodyOf } from '../types';
import { contactKeys } from './keys';

type Update = BodyOf<'/v1/admin/contacts/{id}', 'patch'>;

/** Merges properties into the contact (keys are added or changed, never removed). */
export function useContactUpdateMutation(id: string) {
  return useInvalidatingMutation({
    mutationFn: async (body: Update) => unwrap(await api.PATCH('/v1/admin/contacts/{id}', { params: { path: { id } }, body })),
    invalidates: () => [contactKeys.all],
  });
}
