import { api, unwrap } from '../../api/client';
import { broadcastKeys } from '../broadcasts/keys';
import { useInvalidatingMutation, type MutationOptions } from '../mutation';
import type { BodyOf } from '../types';
import { deliverabilityKeys } from './keys';

/** `{group, provider}` for one breaker, `{}` for every tripped one. */
export type BreakerResume = BodyOf<'/v1/admin/deliverability/resume', 'post'>;

async function resume(only: BreakerResume) {
  return unwrap(await api.POST('/v1/admin/deliverability/resume', { body: only }));
}
export type BreakerResumed = Awaited<ReturnType<typeof resume>>;

/**
 * Puts tripped reputation breakers back to `ok` (full-admin); the breaker's rows reload, and so do
 * the broadcast lists, since the broadcasts it had paused resume with it.
 */
export function useBreakerResumeMutation(options: MutationOptions<BreakerResumed, BreakerResume> = {}) {
  return useInvalidatingMutation({ mutationFn: resume, invalidates: () => [deliverabilityKeys.all, broadcastKeys.all], refreshOnError: true, ...options });
}
