import { api, unwrap } from '../../api/client';
import { listKeys } from '../lists/keys';
import { useInvalidatingMutation, type MutationOptions } from '../mutation';
import { contactKeys } from './keys';

/** A membership change refreshes the contact's lists and the known lists (a new key creates a list). */
const invalidates = (id: string) => () => [contactKeys.lists(id), listKeys.all];

/** Subscribes the contact to a list by key; a key not seen before creates the list. */
export function useContactListAddMutation(id: string, options: MutationOptions<unknown, string> = {}) {
  return useInvalidatingMutation({
    mutationFn: async (listKey: string) =>
      unwrap(await api.PUT('/v1/admin/contacts/{id}/lists/{listKey}', { params: { path: { id, listKey } }, body: { subscribed: true } })),
    invalidates: invalidates(id),
    ...options,
  });
}

export function useContactListRemoveMutation(id: string) {
  return useInvalidatingMutation({
    mutationFn: async (listKey: string) => unwrap(await api.DELETE('/v1/admin/contacts/{id}/lists/{listKey}', { params: { path: { id, listKey } } })),
    invalidates: invalidates(id),
  });
}
