import { api, unwrap } from '../../api/client';
import { useInvalidatingMutation } from '../mutation';
import type { BodyOf } from '../types';
import { contactKeys } from './keys';

type Preferences = BodyOf<'/v1/admin/contacts/{contactId}/preferences', 'put'>;

/** Changes what the contact is subscribed to; the contact's detail carries the preferences. */
export function useContactPreferencesUpdateMutation(contactId: string) {
  return useInvalidatingMutation({
    mutationFn: async (body: Preferences) => unwrap(await api.PUT('/v1/admin/contacts/{contactId}/preferences', { params: { path: { contactId } }, body })),
    invalidates: () => [contactKeys.all],
  });
}
